// Owns what a NOTIFY watch's server pushed for its selected folder: each new message's UID, date and headers as the
// server announced it, and whether those pushes account for everything new above a cursor, so a sweep may take them
// instead of opening the folder and fetching (two round trips to the provider).
import type { FetchedHeaders, FolderCursor, OpenedFolder } from '../../scanner/scannerPorts';

/** Messages held for the next sweep; past it the oldest is dropped and a sweep from below it opens the folder. */
export const MAX_PUSHED = 32;
/** Header bytes held for the next sweep, all messages together; a larger push is dropped the same way. */
export const MAX_PUSHED_BYTES = 256 * 1024;

interface Selection {
  path: string;
  uidValidity: string;
  /**
   * The lowest UID every message from which on was pushed: the folder's UIDNEXT when it was selected, raised past
   * any message dropped from the buffer.
   */
  knownFrom: number;
  /** The folder's message count as the server last said it (EXISTS, less EXPUNGEs). */
  exists: number;
  /** The highest message sequence number pushed, shifted down by EXPUNGEs below it. */
  lastPushedSeq: number;
  messages: FetchedHeaders[];
  bytes: number;
}

export class SelectedPushes {
  private selection: Selection | undefined;

  /** The folder selected on the watch: pushes of new messages in it count from here. */
  get path(): string | undefined {
    return this.selection?.path;
  }

  /** Another folder is being selected: until `selected`, nothing pushed is taken (it may be either folder's). */
  selecting(): void {
    this.selection = undefined;
  }

  /** `path` is selected, as its EXAMINE said: UIDVALIDITY, UIDNEXT and the message count. */
  selected(path: string, state: { uidValidity: string; uidNext: number; exists: number }): void {
    const usable =
      state.uidValidity !== '' && Number.isSafeInteger(state.uidNext) && Number.isSafeInteger(state.exists);
    this.selection = usable
      ? {
          path,
          uidValidity: state.uidValidity,
          knownFrom: state.uidNext,
          exists: state.exists,
          lastPushedSeq: state.exists,
          messages: [],
          bytes: 0,
        }
      : undefined;
  }

  /** The server said the selected folder holds `count` messages (EXISTS). */
  exists(count: number): void {
    if (this.selection && Number.isSafeInteger(count)) this.selection.exists = count;
  }

  /** Message `seq` was expunged: those above it move down one. Unknown (`undefined`): pushes count from a new select. */
  expunged(seq: number | undefined): void {
    const selection = this.selection;
    if (!selection) return;
    if (seq === undefined || !Number.isSafeInteger(seq)) {
      this.selection = undefined;
      return;
    }
    selection.exists = Math.max(0, selection.exists - 1);
    if (selection.lastPushedSeq >= seq) selection.lastPushedSeq--;
  }

  /** The server pushed message `seq` of the selected folder. */
  pushed(seq: number, message: FetchedHeaders): void {
    const selection = this.selection;
    if (!selection || !Number.isSafeInteger(seq) || !Number.isSafeInteger(message.uid)) return;
    selection.lastPushedSeq = Math.max(selection.lastPushedSeq, seq);
    if (message.uid < selection.knownFrom || selection.messages.some(({ uid }) => uid === message.uid))
      return;
    selection.messages.push(message);
    selection.bytes += message.headers.length;
    while (selection.messages.length > MAX_PUSHED || selection.bytes > MAX_PUSHED_BYTES) {
      const dropped = selection.messages.shift();
      if (!dropped) break;
      selection.bytes -= dropped.headers.length;
      selection.knownFrom = Math.max(selection.knownFrom, dropped.uid + 1);
    }
  }

  /**
   * The server pushed message `seq` with only the start of its header block: it is the sweep's to read, so pushes
   * count from above it (a sweep from below it opens the folder), as for a message dropped from the buffer.
   */
  cut(seq: number, uid: number): void {
    const selection = this.selection;
    if (!selection || !Number.isSafeInteger(seq) || !Number.isSafeInteger(uid)) return;
    selection.lastPushedSeq = Math.max(selection.lastPushedSeq, seq);
    selection.knownFrom = Math.max(selection.knownFrom, uid + 1);
  }

  /** Whether the last message the server counted has been pushed (each EXISTS is followed by the new FETCHes, in order). */
  get complete(): boolean {
    return this.selection !== undefined && this.selection.lastPushedSeq >= this.selection.exists;
  }

  /**
   * What opening `path` would tell above `after`, from pushes alone: its state and every message above
   * `after.lastUid`, when `path` is the selected folder with `after`'s UIDVALIDITY, every message above the cursor
   * came after the selection and is still held, the last one counted has been pushed, and at most `most` are new.
   * Undefined otherwise: the caller opens the folder. Messages at or below the cursor are let go.
   */
  opened(path: string, after: FolderCursor | undefined, most: number): OpenedFolder | undefined {
    const selection = this.selection;
    if (!selection || selection.path !== path || !after || after.uidValidity !== selection.uidValidity)
      return undefined;
    const kept = selection.messages.filter(({ uid }) => uid > after.lastUid);
    if (kept.length < selection.messages.length) {
      selection.messages = kept;
      selection.bytes = kept.reduce((sum, { headers }) => sum + headers.length, 0);
    }
    if (after.lastUid + 1 < selection.knownFrom || !this.complete || kept.length > most) return undefined;
    const highest = kept.reduce((most, { uid }) => Math.max(most, uid), after.lastUid);
    return {
      uidValidity: selection.uidValidity,
      uidNext: Math.max(selection.knownFrom, highest + 1),
      messages: selection.exists,
      headers: [...kept].sort((a, b) => a.uid - b.uid),
    };
  }
}
