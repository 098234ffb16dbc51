// Owns reading a mailbox: one session per account, its folder cursors, and fetching only the headers that are new.

import { setMaxListeners } from 'node:events';
import type {
  CursorStore,
  FolderCursor,
  FolderState,
  MailboxConnector,
  MailboxCredentials,
  MailboxSession,
} from './scannerPorts';

/** On first sight of a folder, only this much history can hold a copy for a check that is still alive. */
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
