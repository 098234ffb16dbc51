// Owns what the scanner needs from the outside world, as small interfaces: mailboxes, credentials, cursors, a lease.
import type { DetectedCategory } from '../domain/categories';
import type { MailboxServer } from '../domain/mailboxServer';
import type { PlacementDetails, RecordOutcome } from '../domain/ports';
import type { ReceivingTrust } from '../domain/receivingTrust';
import type { FolderInfo } from './folders';

export type { MailboxServer };

/** OAuth2 client settings and the long-lived refresh token from the account owner's consent. */
export interface OAuth2Grant {
  clientId: string;
  clientSecret?: string | undefined;
  refreshToken: string;
  tokenEndpoint: string;
  scope?: string | undefined;
}

/** How the scanner logs in: an (app) password, or XOAUTH2 with an access token got from the refresh token. */
export type MailboxAuth = { user: string; pass: string } | { user: string; oauth2: OAuth2Grant };

/** Turns an account's auth into what IMAP needs at login: the password, or a fresh access token. */
export interface AccessTokens {
  /** An access token valid for at least a minute; refreshes (and persists a rotated refresh token) as needed. */
  accessToken(email: string, grant: OAuth2Grant): Promise<string>;
}

export interface MailboxCredentials {
  email: string;
  /** gmail, outlook, imap, …: the provider preset it uses, and the provider dimension of metrics. */
  provider: string;
  imap: MailboxServer;
  auth: MailboxAuth;
  /** Folder name -> category, overriding discovery. */
  folders: Readonly<Record<string, DetectedCategory>>;
  /** Whose verdict headers the placement report believes; none when absent. */
  trust?: ReceivingTrust | undefined;
}

export interface CredentialSource {
  get(email: string): Promise<MailboxCredentials | undefined>;
}

export interface FolderState extends FolderInfo {
  uidValidity: string;
  uidNext: number;
  /** How many messages the folder holds (STATUS MESSAGES), where the server said: 0 spares a first sight's reading. */
  messages?: number;
}

export interface FetchedHeaders {
  uid: number;
  /** Milliseconds since the epoch, as the server stored it (INTERNALDATE). */
  internalDate: number;
  headers: Buffer;
  /**
   * Set when the headers were not read: `too-large`, its header block is over MAX_HEADER_BYTES (skipped, counted and
   * stepped over); `over-budget`, the fetch's byte budget was spent before it (it and every UID above it are read
   * by the next fetch: nothing above it is in this answer).
   */
  unread?: 'too-large' | 'over-budget';
}

export const GMAIL_TABS = ['primary', 'promotions', 'social', 'updates', 'forums'] as const;
export type GmailTab = (typeof GMAIL_TABS)[number];

/** One logged-in connection to one mailbox; every method is one or a few IMAP commands. */
export interface MailboxSession {
  /** The server advertises X-GM-EXT-1 (Gmail): INBOX tabs come from X-GM-RAW searches. */
  readonly gmail: boolean;
  /** False once the connection is gone (idle timeout, server or network drop); undefined when it cannot tell. */
  readonly usable?: boolean;
  /** Every folder with its UIDVALIDITY and UIDNEXT, in as few commands as the server allows. */
  folders(): Promise<FolderState[]>;
  /**
   * Headers of the messages with a UID above `afterUid` and at most `upToUid`, in one fetch with its own deadline;
   * past it the session is closed and the call fails with a SilentServerError.
   */
  headersAfter(path: string, afterUid: number, upToUid: number): Promise<FetchedHeaders[]>;
  /** Headers of the messages that arrived at or after `since` (first sight of a folder). */
  headersSince(path: string, since: number): Promise<FetchedHeaders[]>;
  /** Where Gmail files each of `uids` (in INBOX): one X-GM-RAW search per tab over the whole set, first tab wins. */
  tabsOf(path: string, uids: readonly number[]): Promise<Map<number, GmailTab>>;
  /**
   * One folder's state as opening it tells (EXAMINE: no listing of the others) and, when its UIDVALIDITY is
   * `after`'s and at most `most` UIDs are new above `after.lastUid`, their headers in the same visit. `headers`
   * is absent when the caller has to read the folder its usual way (first sight, a new UIDVALIDITY, a backlog);
   * undefined when opening it did not say those three (the caller lists every folder instead).
   */
  openFolder?(path: string, after: FolderCursor | undefined, most: number): Promise<OpenedFolder | undefined>;
  /** The first `maxBytes` of one message's source by UID, with its whole size where told (the sender audit). */
  sourceOf?(
    path: string,
    uid: number,
    maxBytes: number,
  ): Promise<{ source: Buffer; size: number | undefined }>;
  close(): Promise<void>;
}

export interface OpenedFolder {
  uidValidity: string;
  uidNext: number;
  messages: number;
  headers?: FetchedHeaders[];
}

/** A call the server did not answer within its deadline: the session is closed, a new one is needed. */
export class SilentServerError extends Error {
  constructor(readonly waitedMs: number) {
    super(`the server did not answer within ${waitedMs} ms`);
  }
}

/** A connection of its own held on one folder, telling of new mail as the server announces it (IMAP IDLE). */
export interface FolderWatch {
  /** False once the connection is gone: the scanner then polls the account and opens a new watch after backoff. */
  readonly usable: boolean;
  /**
   * What opening `path` would tell above `after`, from what the server pushed with its announcements alone (a watch
   * over every folder, on the folder it has selected); undefined when those do not account for all of it: the
   * caller opens the folder (see openFolder).
   */
  opened?(path: string, after: FolderCursor | undefined, most: number): OpenedFolder | undefined;
  /** Tagged copies landed in `path`: a watch over every folder selects it, so the next ones come with their headers. */
  follow?(path: string): void;
  close(): Promise<void>;
}

export interface MailboxConnector {
  /** Connects and logs in; aborting `signal` ends a connection attempt still waiting on the server. */
  open(credentials: MailboxCredentials, signal?: AbortSignal): Promise<MailboxSession>;
  /**
   * Connects, opens `path` read-only and holds IDLE on it, calling `onNews` whenever the server announces a change
   * in the folder's message count. Undefined when the server offers no IDLE (the scanner polls such accounts).
   * A connector without this method makes the scanner poll every account at every tick.
   */
  watch?(
    credentials: MailboxCredentials,
    path: string,
    onNews: (path: string) => void,
    signal?: AbortSignal,
  ): Promise<FolderWatch | undefined>;
  /**
   * One connection watching every folder of the account at once (IMAP NOTIFY, RFC 5465, with IDLE), calling
   * `onNews` on new mail in any of them, with the folder's name as the server sent it (undefined when it named
   * none). Undefined when the server offers no NOTIFY: then `watch` per folder.
   */
  watchAll?(
    credentials: MailboxCredentials,
    onNews: (path?: string) => void,
    signal?: AbortSignal,
  ): Promise<FolderWatch | undefined>;
}

export interface FolderCursor {
  uidValidity: string;
  lastUid: number;
}

export interface CursorStore {
  get(email: string, path: string): Promise<FolderCursor | undefined>;
  /** Every folder cursor of the account, by folder path, in one read: what a loop needs on its first sweep. */
  all(email: string): Promise<Map<string, FolderCursor>>;
  put(email: string, path: string, cursor: FolderCursor): Promise<void>;
  /**
   * Every folder cursor of the account, replacing those stored; resolves once stored. A store may batch it with
   * other accounts' and keep only so many folders (the rest are read again as at first sight by a later loop).
   */
  putAll(email: string, cursors: ReadonlyMap<string, FolderCursor>): Promise<void>;
}

export interface PendingAccounts {
  checkId: string;
  /** When the check started; a store that leaves it out has every listing taken as the whole truth. */
  createdAt?: number;
  /** Accounts of the check that have not received the message yet. */
  pending: string[];
}

export interface SettledCheck {
  checkId: string;
  status: 'complete' | 'timeout';
  createdAt: number;
}

export interface ActiveChecks {
  /**
   * Checks still within their active minutes at `now`, with the accounts still pending in each; with `since`, only
   * those created at or after it (the scanner keeps older ones from earlier listings). A store may return more.
   */
  listActive(
    now: number,
    since?: number,
    /** Told each page as it is read, before the listing is whole (a store that reads one page may not call it). */
    onPage?: (page: readonly PendingAccounts[]) => void,
  ): Promise<PendingAccounts[]>;
  /**
   * Marks every check of the last 10 minutes that has become complete or timed out as settled, each exactly once
   * (a conditional write), and returns the ones this call settled: for counting completions and timeouts.
   */
  settle(now: number): Promise<SettledCheck[]>;
}

export interface Lease {
  /**
   * True when this owner holds the lease until `now + ttlMs` (taking it over if it had expired, or if it is held
   * by `reservedBy`: the wake-up that reserved it for this loop).
   */
  acquire(owner: string, now: number, ttlMs: number, reservedBy?: string): Promise<boolean>;
  release(owner: string): Promise<void>;
}

/** A lease a wake-up may look at without running a loop: whether some loop holds it now. */
export interface ObservableLease extends Lease {
  heldAt(now: number): Promise<boolean>;
}

/** Where the scanner keeps each account's run of failures, so a dead mailbox drops out of new checks. */
export interface AccountHealthStore {
  /** Counts a failed sweep; true when this failure made the account unhealthy. */
  recordFailure(email: string, error: string, now: number, unhealthyAfter: number): Promise<boolean>;
  /** Clears the failures after a successful sweep; true when there was something to clear. */
  recordSuccess(email: string): Promise<boolean>;
  /**
   * Accounts with failures on record: `unhealthy` ones are out of new checks (the scanner still probes them so they
   * can come back); the others have failed lately and need their count cleared by the next successful sweep.
   */
  listFailing(): Promise<{ email: string; unhealthy: boolean }[]>;
}

/** One account's result, as written with others of the same check. */
export interface ResultEntry {
  email: string;
  category: DetectedCategory;
  details: PlacementDetails;
}

/** Where the scanner writes results: one at a time, and, where the store can, several of one check at once. */
export interface ResultStore {
  /**
   * Sets one account's category and counts it as received, at most once, and only while the check is active
   * at `now`. Everything else (a repeat, a race lost, a late arrival, an unknown check) changes nothing.
   */
  recordResult(
    checkId: string,
    email: string,
    category: DetectedCategory,
    now: number,
    details?: PlacementDetails,
  ): Promise<RecordOutcome>;
  /**
   * Records every entry in one write or none of them: false (nothing written) when any of the accounts is no
   * longer pending or the check is closed. `received` grows by exactly the number of entries.
   */
  recordResults?(checkId: string, entries: readonly ResultEntry[], now: number): Promise<boolean>;
}
