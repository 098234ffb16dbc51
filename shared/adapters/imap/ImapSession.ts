// Owns a mailbox session: one connection a sweep reads through, folder by folder under a read-only lock, with every
// call bounded by a watchdog; sweeps fetch headers only (the audit, one copy's capped source), and a refused SEARCH
// fails the sweep.
import type { ImapFlow } from 'imapflow';
import { startTimer, type Timer } from '../../domain/timer';
import { FETCHED_HEADERS, MAX_HEADER_BYTES, selectedFields } from '../../scanner/headers';
import {
  type FetchedHeaders,
  type FolderCursor,
  type FolderState,
  GMAIL_TABS,
  type GmailTab,
  type MailboxSession,
  type OpenedFolder,
  SilentServerError,
} from '../../scanner/scannerPorts';
import { logOut } from './connection';
import { partialSourceIn } from './copySource';

const DAY_MS = 86_400_000;
/** On first sight of a folder, at most this many of the newest candidates are read; a test mailbox gets far fewer in 10 minutes. */
export const MAX_FIRST_SIGHT_MESSAGES = 500;
/** Header bytes one fetch of a batch holds at most: FETCH_BATCH messages of FIRST_READ_BYTES, or fewer read whole. */
export const BATCH_HEADER_BYTES = 8 * 1024 * 1024;
/** What each message of a batch is read as first: a delivered copy's header block is a few KB; longer ones are read again. */
export const FIRST_READ_BYTES = 32 * 1024;
const FETCHED: ReadonlySet<string> = new Set(FETCHED_HEADERS);

export class ImapSession implements MailboxSession {
  readonly gmail: boolean;

  constructor(
    private readonly client: ImapFlow,
    /** The longest any one call may wait on the server; past it the connection is closed and the call fails. */
    private readonly answerMs: number,
  ) {
    this.gmail = client.capabilities.has('X-GM-EXT-1');
  }

  get usable(): boolean {
    return this.client.usable;
  }

  async folders(): Promise<FolderState[]> {
    // One LIST-STATUS where the server has it (Dovecot, Gmail), else LIST plus one STATUS per folder.
    const list = await this.answered(() =>
      this.client.list({ statusQuery: { uidNext: true, uidValidity: true, messages: true } }),
    );
    return list.flatMap((entry) => {
      const { uidNext, uidValidity, messages } = entry.status ?? {};
      if (uidNext === undefined || uidValidity === undefined) return [];
      return [
        {
          path: entry.path,
          specialUse: entry.specialUse,
          flags: [...entry.flags],
          uidNext,
          uidValidity: String(uidValidity),
          ...(typeof messages === 'number' ? { messages } : {}),
        },
      ];
    });
  }

  async headersAfter(path: string, afterUid: number, upToUid: number): Promise<FetchedHeaders[]> {
    // A bounded range, never `N:*`: the caller batches a backlog, and each call is one fetch under answerMs.
    return this.withFolder(path, () => this.headersBetween(afterUid, upToUid));
  }

  async headersSince(path: string, since: number): Promise<FetchedHeaders[]> {
    return this.withFolder(path, async () => {
      // With WITHIN (Dovecot) imapflow sends YOUNGER <seconds>, which is exact; without it (Gmail) SINCE has
      // day granularity in the server's time zone, so ask a day more, keep the newest, and filter on INTERNALDATE.
      const exact = this.client.capabilities.has('WITHIN');
      // Only the newest MAX_FIRST_SIGHT_MESSAGES UIDs can hold the newest candidates (UIDs grow with arrival), so the
      // search stays off the rest of a long history: searching a long history by date made a first sight slower
      // than in a mailbox without it, with the same commands (the sweep-cost bench; BENCHMARKS.md).
      const uidNext = this.client.mailbox ? Number(this.client.mailbox.uidNext) : 0;
      const from = Math.max(1, uidNext - MAX_FIRST_SIGHT_MESSAGES);
      const found = refusedIfFalse(
        await this.client.search(
          { uid: `${from}:*`, since: new Date(exact ? since : since - DAY_MS) },
          { uid: true },
        ),
        'SEARCH SINCE',
      ).filter((uid) => uid >= from);
      if (found.length === 0) return [];
      const uids = found.sort((a, b) => a - b).slice(-MAX_FIRST_SIGHT_MESSAGES);
      // In fetches of a batch's size, each within the byte budget; one left over-budget ends the read there.
      const fetched: FetchedHeaders[] = [];
      for (let at = 0; at < uids.length && !fetched.some(({ unread }) => unread === 'over-budget'); at += 250)
        fetched.push(...(await this.fetchHeaders(uids.slice(at, at + 250).join(','))));
      return fetched.filter((message) => message.unread || message.internalDate >= since);
    });
  }

  async openFolder(
    path: string,
    after: FolderCursor | undefined,
    most: number,
  ): Promise<OpenedFolder | undefined> {
    return this.withFolder(path, async () => {
      // EXAMINE's own answer (UIDVALIDITY, UIDNEXT, EXISTS): the state LIST-STATUS would have given for this folder.
      const mailbox = this.client.mailbox || undefined;
      const opened = {
        uidValidity: String(mailbox?.uidValidity ?? ''),
        uidNext: Number(mailbox?.uidNext),
        messages: Number(mailbox?.exists),
      };
      // RFC 3501 requires all three; a server that leaves one out has its folders listed instead.
      if (
        !Number.isSafeInteger(opened.uidNext) ||
        !Number.isSafeInteger(opened.messages) ||
        !opened.uidValidity
      )
        return undefined;
      const high = opened.uidNext - 1;
      if (after?.uidValidity !== opened.uidValidity || opened.messages === 0) return opened;
      if (high <= after.lastUid) return { ...opened, headers: [] };
      if (high - after.lastUid > most) return opened;
      return { ...opened, headers: await this.headersBetween(after.lastUid, high) };
    });
  }

  async tabsOf(path: string, uids: readonly number[]): Promise<Map<number, GmailTab>> {
    const tabs = new Map<number, GmailTab>();
    if (uids.length === 0) return tabs;
    return this.withFolder(path, async () => {
      for (const tab of GMAIL_TABS) {
        const found = refusedIfFalse(
          await this.client.search({ uid: uids.join(','), gmraw: `category:${tab}` }, { uid: true }),
          `X-GM-RAW category:${tab}`,
        );
        for (const uid of found) if (!tabs.has(uid)) tabs.set(uid, tab);
      }
      return tabs;
    });
  }

  /**
   * The first `maxBytes` of one copy's source, for the sender audit, over this held session: no login of its own.
   * It queues behind a sweep's folder lock; the watchdog runs from the fetch, so waiting for a sweep never closes it.
   */
  async sourceOf(
    path: string,
    uid: number,
    maxBytes: number,
  ): Promise<{ source: Buffer; size: number | undefined }> {
    return this.inFolder(path, () => this.answered(() => partialSourceIn(this.client, uid, maxBytes)));
  }

  close(): Promise<void> {
    return logOut(this.client);
  }

  /** Runs `call`, closing the connection (which fails the call) when the server has not answered within answerMs. */
  private async answered<T>(call: () => Promise<T>): Promise<T> {
    let timer: Timer | undefined;
    let silent = false;
    const watchdog = new Promise<never>((_, reject) => {
      timer = startTimer(this.answerMs, () => {
        silent = true;
        this.client.close();
        reject(new SilentServerError(this.answerMs));
      });
    });
    try {
      return await Promise.race([call(), watchdog]);
    } catch (error) {
      if (silent) throw new SilentServerError(this.answerMs);
      throw error;
    } finally {
      timer?.cancel();
      watchdog.catch(() => undefined);
    }
  }

  private async withFolder<T>(path: string, read: () => Promise<T>): Promise<T> {
    return this.answered(() => this.inFolder(path, read));
  }

  private async inFolder<T>(path: string, read: () => Promise<T>): Promise<T> {
    const lock = await this.client.getMailboxLock(path, { readOnly: true });
    // Leave nothing selected: servers may answer STATUS for the selected mailbox from the session's stale view, and
    // the next sweep's LIST-STATUS must see new mail. The caller does not wait for it (a round trip to the provider
    // before the copies are recorded); the next command on this session queues behind it and the lock.
    const unselect = () =>
      this.client
        .mailboxClose()
        .catch(() => undefined)
        .finally(() => lock.release());
    try {
      const result = await read();
      void unselect();
      return result;
    } catch (error) {
      await unselect();
      throw error;
    }
  }

  /** The selected folder's messages above `afterUid` and at most `upToUid`, in one fetch. */
  private async headersBetween(afterUid: number, upToUid: number): Promise<FetchedHeaders[]> {
    const fetched = await this.fetchHeaders(`${afterUid + 1}:${Math.max(afterUid + 1, upToUid)}`);
    return fetched.filter((message) => message.uid > afterUid && message.uid <= upToUid);
  }

  /**
   * The messages of `range`, each read as at most FIRST_READ_BYTES of its header block (a batch of FETCH_BATCH asks
   * for at most BATCH_HEADER_BYTES). Of the ones cut short, one byte past MAX_HEADER_BYTES is asked in one command:
   * those that have it are `too-large`, never read. The rest are read again alone, whole, while the batch can hold
   * one more; then it and the rest are left `over-budget` for the next fetch. No answer outgrows its budget.
   */
  private async fetchHeaders(range: string): Promise<FetchedHeaders[]> {
    const first = await this.fetchCapped(range, 0, FIRST_READ_BYTES);
    const cut = first.filter((message) => message.cut).map(({ read }) => read.uid);
    const over =
      cut.length === 0
        ? new Set<number>()
        : new Set(
            (await this.fetchCapped(cut.join(','), MAX_HEADER_BYTES, 1))
              .filter(({ raw }) => raw > 0)
              .map(({ read }) => read.uid),
          );
    const read: FetchedHeaders[] = [];
    let held = 0;
    for (const message of first) {
      const { uid } = message.read;
      if (over.has(uid)) {
        read.push({ ...message.read, headers: Buffer.alloc(0), unread: 'too-large' });
        continue;
      }
      if (!message.cut) {
        held += message.read.headers.length;
        read.push(message.read);
        continue;
      }
      if (held > 0 && held + MAX_HEADER_BYTES > BATCH_HEADER_BYTES) {
        read.push({ ...message.read, headers: Buffer.alloc(0), unread: 'over-budget' });
        break;
      }
      const [again] = await this.fetchCapped(String(uid), 0, MAX_HEADER_BYTES);
      // Grown past the cap since the probe cannot happen (a message does not change); counted as too large anyway.
      if (!again || again.cut) read.push({ ...message.read, headers: Buffer.alloc(0), unread: 'too-large' });
      else {
        held += again.read.headers.length;
        read.push(again.read);
      }
    }
    return read;
  }

  /**
   * One FETCH of `BODY.PEEK[HEADER]<from.bytes>`, kept to the fields the scanner reads; `cut`: the block is longer,
   * `raw`: the bytes the server sent.
   */
  private async fetchCapped(
    range: string,
    from: number,
    bytes: number,
  ): Promise<{ read: FetchedHeaders; cut: boolean; raw: number }[]> {
    const messages = await this.client.fetchAll(
      range,
      { uid: true, internalDate: true, bodyParts: [{ key: 'HEADER', start: from, maxLength: bytes }] },
      { uid: true },
    );
    return messages.map((message) => {
      const raw = message.headers ?? message.bodyParts?.get('header') ?? Buffer.alloc(0);
      const headers = from === 0 ? keptFields(raw) : Buffer.alloc(0);
      const read = { uid: message.uid, internalDate: dateOf(message.internalDate), headers };
      return { read, cut: raw.length >= bytes, raw: raw.length };
    });
  }
}

/**
 * imapflow answers a refused SEARCH (NO/BAD) with `false`, not an error. Treating that as "nothing found" would
 * record wrong tabs or move a cursor past unread mail, so it fails the sweep instead, which is retried.
 */
const refusedIfFalse = (found: number[] | false | undefined, what: string): number[] => {
  if (found === false || found === undefined) throw new Error(`the server refused ${what}`);
  return found;
};

/** Of a header block read from its start, the fields the scanner reads (FETCHED_HEADERS), in their order. */
export const keptFields = (raw: Buffer): Buffer =>
  Buffer.from(selectedFields(raw.toString('latin1'), FETCHED), 'latin1');

/** An INTERNALDATE as imapflow hands it over, in milliseconds since the epoch (0 when absent). */
export const dateOf = (value: Date | string | undefined): number =>
  value === undefined ? 0 : new Date(value).getTime();
