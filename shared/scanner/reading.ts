// Owns reading a mailbox: one session per account, its folder cursors, and fetching only the headers that are new.

import { setMaxListeners } from 'node:events';
import type { Clock } from '../domain/clock';
import {
  type CursorStore,
  type FetchedHeaders,
  type FolderCursor,
  type FolderState,
  type MailboxConnector,
  type MailboxCredentials,
  type MailboxSession,
  SilentServerError,
} from './ports';

/** On first sight of a folder, only this much history can hold a copy for a check that is still alive. */
export const LOOKBACK_MS = 10 * 60 * 1000;

export interface AccountState {
  session?: MailboxSession;
  /** Folder cursors as last read or written by this scanner; the store is read once per account and loop. */
  cursors?: Map<string, FolderCursor>;
  /** That one read while it runs, started beside the login (see readCursors). */
  cursorsRead?: Promise<Map<string, FolderCursor>>;
  /** Per folder, UIDs above its cursor already read and recorded (the newest of a backlog, read first). */
  ahead?: Map<string, AheadRange>;
  /** Per folder, fetches narrowed after one missed its deadline (see Narrowed). */
  narrowed?: Map<string, Narrowed>;
  /** The last sweep left new messages unread (a backlog): the next one follows at once. */
  backlog?: boolean;
  /** Every folder as this loop's last full sweep listed it: what a sweep of announced folders alone goes by. */
  listed?: FolderState[];
  /** The session was parked by the last loop and no sweep has used it yet (Scanner.parked). */
  parked?: boolean;
  busy: boolean;
  failures: number;
  retryAt: number;
}

/** Every connection attempt of a sweep listens on it, a hundred at once on a shard's first sweep: no leak warning. */
export const closingSignal = () => {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
};

/**
 * The account's session, opened on first use; one that died while idle is replaced, not failed on. The account's
 * cursors are read while it logs in, not after.
 */
export const sessionOf = async (
  state: AccountState,
  connector: MailboxConnector,
  cursors: CursorStore,
  credentials: MailboxCredentials,
  signal: AbortSignal,
): Promise<MailboxSession> => {
  // imapflow ends a session after socketMs of silence.
  if (state.session?.usable === false) delete state.session;
  readCursors(cursors, credentials.email, state);
  state.session ??= await connector.open(credentials, signal);
  return state.session;
};

/** Closes and forgets the account's session after a failure, so the next sweep opens a fresh one. */
export const dropSession = async (state: AccountState): Promise<void> => {
  const session = state.session;
  delete state.session;
  await session?.close().catch(() => undefined);
};

/**
 * Starts reading the account's cursors before its login, so the read and the login overlap instead of following
 * each other; once per account and loop. A failed read is forgotten (the sweep that awaits it fails as a store
 * outage) and the next sweep reads again.
 */
const readCursors = (cursors: CursorStore, email: string, state: AccountState): void => {
  if (state.cursors || state.cursorsRead) return;
  const read = cursors.all(email);
  state.cursorsRead = read;
  read.then(
    (found) => {
      state.cursors ??= found;
    },
    () => undefined,
  );
  read.finally(() => delete state.cursorsRead).catch(() => undefined);
};

/** The account's cursors as this loop knows them: read once (or that read, still running, awaited) and kept. */
export const knownCursors = async (
  cursors: CursorStore,
  email: string,
  state: AccountState,
): Promise<Map<string, FolderCursor>> => {
  state.cursors ??= await (state.cursorsRead ?? cursors.all(email));
  return state.cursors;
};

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
}

/**
 * A folder whose fetch missed its deadline is read in smaller spans from its cursor, halved at each miss and
 * doubled back at each answer, and without reading ahead, until the cursor passes `until` (the end of the last
 * range missed): a sender's header blocks that are slow to serve cannot hold a whole batch, or the account, back.
 */
export interface Narrowed {
  uidValidity: string;
  span: number;
  until: number;
}

export interface AheadRange {
  uidValidity: string;
  from: number;
  to: number;
}

/** The oldest-first batches one sweep may still read, shared by the account's folders; zero ends them early. */
export interface SweepBudget {
  batches: number;
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
  // An empty folder has nothing to read: its cursor moves to its next UID without opening it (on a loop's first
  // sweep, most folders of most accounts: two commands fewer each). First sight reads at most the newest 500.
  if (folder.messages === 0 || !known) {
    const messages = folder.messages === 0 ? [] : await session.headersSince(path, clock.now() - LOOKBACK_MS);
    const lastUid = Math.max(high, known ? cursor.lastUid : 0, ...messages.map((message) => message.uid));
    yield { messages, cursor: { uidValidity, lastUid }, partial: false };
    return;
  }
  let done = cursor.lastUid;
  // A folder holding no more than a batch (STATUS MESSAGES) has no more than that above its cursor, however far
  // its UIDs spread: one fetch, where batches of UIDs would cost one per FETCH_BATCH of gaps.
  const whole = folder.messages !== undefined && folder.messages <= FETCH_BATCH ? high - done : FETCH_BATCH;
  const narrowedOf = () => {
    const narrowed = state.narrowed?.get(path);
    if (narrowed?.uidValidity === uidValidity && narrowed.until > done) return narrowed;
    state.narrowed?.delete(path);
    return undefined;
  };
  const narrow = (span: number, until: number) => {
    state.narrowed ??= new Map();
    state.narrowed.set(path, { uidValidity, span, until: Math.max(until, narrowedOf()?.until ?? 0) });
  };
  const span = Math.min(whole, narrowedOf()?.span ?? whole);
  const aheadOf = () => {
    const ahead = state.ahead?.get(path);
    if (ahead?.uidValidity === uidValidity && ahead.to > done) return ahead;
    state.ahead?.delete(path);
    return undefined;
  };
  if (high - done > span && !narrowedOf()) {
    const from = Math.max(done, aheadOf()?.to ?? done, high - FETCH_BATCH) + 1;
    if (from <= high) {
      const messages = await missable(session.headersAfter(path, from - 1, high));
      // Missed: the newest wait for the cursor to reach them, read in order from there.
      if (!messages) narrow(span, high);
      yield messages
        ? { messages, ahead: { uidValidity, from, to: high }, partial: true }
        : { messages: [], partial: true, stalled: {} };
      if (!messages) return;
    }
  }
  for (let fetched = 0; done < high && (fetched === 0 || budget.batches > 0); ) {
    const ahead = aheadOf();
    if (ahead && ahead.from <= done + 1) {
      done = Math.min(ahead.to, high);
      yield { messages: [], cursor: { uidValidity, lastUid: done }, partial: done < high };
      continue;
    }
    const narrowed = narrowedOf();
    const to = Math.min(done + (narrowed?.span ?? whole), high, ahead ? ahead.from - 1 : high);
    budget.batches--;
    fetched++;
    const messages = await missable(session.headersAfter(path, done, to));
    if (!messages && to - done > 1) {
      narrow(Math.floor((to - done) / 2), to);
      yield { messages: [], partial: true, stalled: {} };
      return;
    }
    if (!messages) {
      // Even alone it was not handed over in time: stepped over (and counted), or it would hold the folder forever.
      narrow(1, to);
      yield {
        messages: [],
        cursor: { uidValidity, lastUid: to },
        partial: to < high,
        stalled: { skipped: to },
      };
      return;
    }
    if (narrowed) narrowed.span = Math.min(narrowed.span * 2, FETCH_BATCH);
    done = to;
    yield { messages, cursor: { uidValidity, lastUid: done }, partial: done < high };
  }
}

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

/**
 * Moves the folder cursors a sweep read past, in the store and in memory, in one write: only after every one of
 * those folders' results is written. A sweep that fails before this leaves them where they were, and the next one
 * reads those folders again (their results are conditional writes: nothing is recorded twice).
 */
export const advanceCursors = async (
  cursors: CursorStore,
  email: string,
  state: AccountState,
  moved: ReadonlyMap<string, FolderCursor>,
): Promise<void> => {
  if (moved.size === 0) return;
  // The store keeps an account's cursors whole: every folder's this loop knows, the moved ones moved.
  const all = new Map([...(await knownCursors(cursors, email, state)), ...moved]);
  await cursors.putAll(email, all);
  state.cursors = all;
};
