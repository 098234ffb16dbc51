// Owns a sweep of only the folders a watch announced: each one opened (EXAMINE says its state) with no listing first.
import type { DetectedCategory } from '../domain/categories';
import { FETCH_BATCH } from './folderReads';
import { scanFolders } from './folders';
import { type AccountState, knownCursors } from './reading';
import type {
  CursorStore,
  FetchedHeaders,
  FolderState,
  MailboxCredentials,
  MailboxSession,
} from './scannerPorts';
import type { PushedOpening } from './watching';

/** The folders announcements named since an account's last sweep started (see Watches.sweeping). */
export type Announced = ReadonlySet<string>;

export interface FoldersToRead {
  /** Every folder as listed, or the announced ones worth reading with the state opening each one told. */
  folders: FolderState[];
  /** The session to read them through (answering the fetch each opening already made without asking again). */
  reader: MailboxSession;
  /** Only announced folders: the sweep is not the safety net's, and the account's watches are left as they are. */
  focused: boolean;
}

/**
 * The announced folders alone when `announced` names some and openAnnounced can open them; otherwise every folder
 * in one listing, kept in `state` for the sweeps of announced folders that follow.
 */
export const foldersToRead = async (
  session: MailboxSession,
  state: AccountState,
  cursors: CursorStore,
  credentials: MailboxCredentials,
  announced: Announced | undefined,
  pushed?: PushedOpening,
): Promise<FoldersToRead> => {
  const { email, folders: overrides } = credentials;
  const focused =
    announced && (await openAnnounced(session, state, cursors, email, overrides, announced, pushed));
  if (focused) return focused;
  state.listed = await session.folders();
  return { folders: state.listed, reader: session, focused: false };
};

interface Prefetched {
  afterUid: number;
  upToUid: number;
  headers: FetchedHeaders[];
}

/**
 * Opens the announced folders the account reads, one by one: opening a folder tells its UIDVALIDITY, UIDNEXT and
 * message count, and fetches what is new above its cursor in the same visit, so the copy is read one round trip
 * after its announcement sooner than with a LIST-STATUS of every folder first; where the watch was pushed all of
 * that with the announcement (`pushed`), the folder is not opened at all. Undefined, a full sweep instead,
 * when this loop has no listing to know the folders by, a name is not in it (a new folder, or one the server named
 * otherwise in the announcement), or the session cannot open a folder alone (or opening one did not say its state).
 */
const openAnnounced = async (
  session: MailboxSession,
  state: AccountState,
  cursors: CursorStore,
  email: string,
  overrides: Readonly<Record<string, DetectedCategory>>,
  announced: Announced,
  pushed: PushedOpening | undefined,
): Promise<FoldersToRead | undefined> => {
  const { listed } = state;
  if (!listed || !session.openFolder) return undefined;
  const named = [...announced].map((path) => listed.find((folder) => folder.path === path));
  if (named.some((folder) => folder === undefined)) return undefined;
  const worth = new Set(scanFolders(named as FolderState[], overrides).map((folder) => folder.path));
  const known = await knownCursors(cursors, email, state);
  const folders: FolderState[] = [];
  const prefetched = new Map<string, Prefetched>();
  for (const folder of named as FolderState[]) {
    if (!worth.has(folder.path)) continue;
    const cursor = known.get(folder.path);
    // A folder read in narrowed spans or ahead of its cursor is read its usual way, from its state alone.
    const usual = state.narrowed?.has(folder.path) || state.ahead?.has(folder.path);
    const after = usual ? undefined : cursor;
    // What the watch was pushed with the announcement, when it accounts for everything new: no round trip at all.
    const opened =
      pushed?.(folder.path, after, FETCH_BATCH) ??
      (await session.openFolder(folder.path, after, FETCH_BATCH));
    if (!opened) return undefined;
    const { uidValidity, uidNext, messages, headers } = opened;
    folders.push({ ...folder, uidValidity, uidNext, messages });
    if (headers && cursor)
      prefetched.set(folder.path, { afterUid: cursor.lastUid, upToUid: uidNext - 1, headers });
  }
  return { folders, reader: answering(session, prefetched), focused: true };
};

/** The session, except that the one fetch each opening made is answered from what it fetched. */
const answering = (session: MailboxSession, prefetched: Map<string, Prefetched>): MailboxSession => ({
  gmail: session.gmail,
  get usable() {
    return session.usable;
  },
  folders: () => session.folders(),
  headersAfter: (path, afterUid, upToUid) => {
    const made = prefetched.get(path);
    if (made?.afterUid !== afterUid || made.upToUid !== upToUid)
      return session.headersAfter(path, afterUid, upToUid);
    prefetched.delete(path);
    return Promise.resolve(made.headers);
  },
  headersSince: (path, since) => session.headersSince(path, since),
  tabsOf: (path, uids) => session.tabsOf(path, uids),
  close: () => session.close(),
});
