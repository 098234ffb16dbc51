// Owns reading one folder's new messages in bounded fetches: newest batch first, then oldest first from the cursor,
// narrowed after a missed deadline, stepping over what was read ahead and over messages too large to read.
import type { Clock } from '../domain/clock';
import { type AccountState, type AheadRange, knownCursors, LOOKBACK_MS, type Narrowed } from './reading';
import {
  type CursorStore,
  type FetchedHeaders,
  type FolderCursor,
  type FolderState,
  type MailboxSession,
  SilentServerError,
} from './scannerPorts';

/**
 * UIDs per fetch: a few hundred header blocks answer well inside one fetch's deadline on a loaded server, where
 * everything since the cursor in one fetch did not once a quiet period had let a backlog build up.
 */
export const FETCH_BATCH = 250;
/**
 * Oldest-first batches one sweep of an account reads beyond each folder's first: a backlog drains over sweeps that
 * follow one another at once, each short, so announcements, the loop's tick and the store's writes come between.
 */
export const SWEEP_BATCHES = 8;

/** One fetch of a folder's new messages, or a move of its cursor over messages already read ahead of it. */
export interface FolderRead {
  messages: FetchedHeaders[];
  /** Where the cursor may move once these messages' results are written; absent for a read ahead of it. */
  cursor?: FolderCursor;
  /** The UIDs read ahead of the cursor (the newest of a backlog), remembered once their copies are recorded. */
  ahead?: AheadRange;
  /** The folder is not read to its end yet: more follows in this sweep or the next. */
  partial: boolean;
  /**
   * The fetch missed its deadline and closed the session: the sweep ends here, as progress, not a failure. With
   * `skipped`, that fetch was of this one UID alone, and `cursor` moves past it.
   */
  stalled?: { skipped?: number };
  /** UIDs read and stepped over because their header blocks are over MAX_HEADER_BYTES (counted, never parsed). */
  skipped?: number[];
}

/** The oldest-first batches one sweep may still read, shared by the account's folders; zero ends them early. */
export interface SweepBudget {
  batches: number;
}

/** One folder's read spans within an account's state: how far it is read, narrowed, and read ahead. */
class Spans {
  constructor(
    private readonly state: AccountState,
    private readonly path: string,
    private readonly uidValidity: string,
    /** The last UID read and recorded in order: where the cursor may move. */
    public done: number,
  ) {}

  narrowed(): Narrowed | undefined {
    const narrowed = this.state.narrowed?.get(this.path);
    if (narrowed?.uidValidity === this.uidValidity && narrowed.until > this.done) return narrowed;
    this.state.narrowed?.delete(this.path);
    return undefined;
  }

  narrow(span: number, until: number): void {
    this.state.narrowed ??= new Map();
    const wider = Math.max(until, this.narrowed()?.until ?? 0);
    this.state.narrowed.set(this.path, { uidValidity: this.uidValidity, span, until: wider });
  }

  ahead(): AheadRange | undefined {
    const ahead = this.state.ahead?.get(this.path);
    if (ahead?.uidValidity === this.uidValidity && ahead.to > this.done) return ahead;
    this.state.ahead?.delete(this.path);
    return undefined;
  }
}

/**
 * New messages of a folder since its cursor, in fetches of at most FETCH_BATCH UIDs; nothing when nothing
 * changed. A folder holding more than one batch is read newest batch first: a new check's copy lands at the top
 * and would otherwise wait for the whole backlog below it. Then oldest first from the cursor, its first batch
 * always and the next ones while `budget` lasts, stepping over what was read ahead and recorded.
 */
export async function* readNew(
  cursors: CursorStore,
  clock: Clock,
  email: string,
  state: AccountState,
  session: MailboxSession,
  folder: FolderState,
  budget: SweepBudget,
): AsyncGenerator<FolderRead> {
  const { path, uidValidity } = folder;
  const cursor = (await knownCursors(cursors, email, state)).get(path);
  const known = cursor?.uidValidity === uidValidity;
  const high = folder.uidNext - 1;
  if (known && high <= cursor.lastUid) return;
  if (folder.messages === 0 || !known) {
    yield await firstSight(session, clock, folder, known ? cursor.lastUid : 0);
    return;
  }
  const spans = new Spans(state, path, uidValidity, cursor.lastUid);
  // A folder holding no more than a batch (STATUS MESSAGES) has no more than that above its cursor, however far
  // its UIDs spread: one fetch, where batches of UIDs would cost one per FETCH_BATCH of gaps.
  const whole =
    folder.messages !== undefined && folder.messages <= FETCH_BATCH ? high - spans.done : FETCH_BATCH;
  const span = Math.min(whole, spans.narrowed()?.span ?? whole);
  if (high - spans.done > span && !spans.narrowed()) {
    const newest = await readNewest(session, folder, spans, span);
    if (newest) yield newest;
    if (newest?.stalled) return;
  }
  for (let fetched = 0; spans.done < high && (fetched === 0 || budget.batches > 0); ) {
    const ahead = spans.ahead();
    if (ahead && ahead.from <= spans.done + 1) {
      spans.done = Math.min(ahead.to, high);
      yield { messages: [], cursor: { uidValidity, lastUid: spans.done }, partial: spans.done < high };
      continue;
    }
    const to = Math.min(spans.done + (spans.narrowed()?.span ?? whole), high, ahead ? ahead.from - 1 : high);
    budget.batches--;
    fetched++;
    const read = await readInOrder(session, folder, spans, to);
    yield read;
    if (read.stalled) return;
  }
}

/** First sight of a folder (or an empty one): at most the newest 500 of the last LOOKBACK_MS, the cursor set. */
const firstSight = async (
  session: MailboxSession,
  clock: Clock,
  folder: FolderState,
  lastUid: number,
): Promise<FolderRead> => {
  const { path, uidValidity } = folder;
  const high = folder.uidNext - 1;
  // An empty folder has nothing to read: its cursor moves to its next UID without opening it (on a loop's first
  // sweep, most folders of most accounts: two commands fewer each).
  const fetched = folder.messages === 0 ? [] : await session.headersSince(path, clock.now() - LOOKBACK_MS);
  const top = Math.max(high, lastUid, ...fetched.map((message) => message.uid));
  const { messages, skipped, reached } = answerOf(fetched, top);
  return { messages, cursor: { uidValidity, lastUid: reached }, partial: reached < top, skipped };
};

/** The newest batch, read ahead of the cursor; a miss narrows the folder and ends the sweep. */
const readNewest = async (
  session: MailboxSession,
  folder: FolderState,
  spans: Spans,
  span: number,
): Promise<FolderRead | undefined> => {
  const high = folder.uidNext - 1;
  const from = Math.max(spans.done, spans.ahead()?.to ?? spans.done, high - FETCH_BATCH) + 1;
  if (from > high) return undefined;
  const fetched = await missable(session.headersAfter(folder.path, from - 1, high));
  // Missed: the newest wait for the cursor to reach them, read in order from there.
  if (!fetched) {
    spans.narrow(span, high);
    return { messages: [], partial: true, stalled: {} };
  }
  const { messages, skipped, reached } = answerOf(fetched, high);
  return { messages, ahead: { uidValidity: folder.uidValidity, from, to: reached }, partial: true, skipped };
};

/** One fetch from the cursor up to `to`, narrowed at a miss; a UID that misses alone is stepped over (counted). */
const readInOrder = async (
  session: MailboxSession,
  folder: FolderState,
  spans: Spans,
  to: number,
): Promise<FolderRead> => {
  const { uidValidity } = folder;
  const high = folder.uidNext - 1;
  const narrowed = spans.narrowed();
  const fetched = await missable(session.headersAfter(folder.path, spans.done, to));
  if (!fetched && to - spans.done > 1) {
    spans.narrow(Math.floor((to - spans.done) / 2), to);
    return { messages: [], partial: true, stalled: {} };
  }
  if (!fetched) {
    // Even alone it was not handed over in time: stepped over (and counted), or it would hold the folder forever.
    spans.narrow(1, to);
    return {
      messages: [],
      cursor: { uidValidity, lastUid: to },
      partial: to < high,
      stalled: { skipped: to },
    };
  }
  if (narrowed) narrowed.span = Math.min(narrowed.span * 2, FETCH_BATCH);
  const { messages, skipped, reached } = answerOf(fetched, to);
  spans.done = reached;
  return { messages, cursor: { uidValidity, lastUid: reached }, partial: reached < high, skipped };
};

/** A fetch's headers, or undefined when it missed its deadline; any other failure fails the sweep as before. */
const missable = (fetch: Promise<FetchedHeaders[]>): Promise<FetchedHeaders[] | undefined> =>
  fetch.catch((error: unknown) => {
    if (error instanceof SilentServerError) return undefined;
    throw error;
  });

/** Remembers UIDs read ahead of a folder's cursor whose copies are all recorded: the cursor steps over them. */
export const readAhead = (state: AccountState, path: string, range: AheadRange): void => {
  const before = state.ahead?.get(path);
  const joins =
    before?.uidValidity === range.uidValidity && range.from <= before.to + 1 && range.to >= before.from - 1;
  state.ahead ??= new Map();
  state.ahead.set(
    path,
    joins ? { ...range, from: Math.min(before.from, range.from), to: Math.max(before.to, range.to) } : range,
  );
};

/** A fetch's answer as a read: what to attribute, the UIDs skipped as too large, and how far it reached. */
const answerOf = (messages: FetchedHeaders[], to: number) => {
  const deferred = messages.find(({ unread }) => unread === 'over-budget');
  const reached = deferred ? deferred.uid - 1 : to;
  const within = messages.filter(({ uid }) => uid <= reached);
  return {
    messages: within.filter(({ unread }) => !unread),
    skipped: within.filter(({ unread }) => unread === 'too-large').map(({ uid }) => uid),
    reached,
  };
};
