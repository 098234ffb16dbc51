// Owns the deploy probe's sweep: one account read end to end by the real Scanner (login, folder listing, header
// fetches, attribution, recording), on stores the probe owns in memory, so nothing it records reaches a live check,
// a live cursor or the account's health; its cursors start a few UIDs below each folder's top, so it reads the newest
// messages whatever the live loops have read, in one bounded fetch a folder.

import { isInbox } from '../domain/categories';
import type { Clock } from '../domain/clock';
import type { RecordOutcome } from '../domain/ports';
import type { Logger } from '../log';
import { scanFolders } from './folders';
import type { ProbeOutcome } from './probe';
import { Scanner } from './Scanner';
import type {
  AccountHealthStore,
  ActiveChecks,
  CredentialSource,
  CursorStore,
  FolderCursor,
  FolderState,
  MailboxConnector,
  MailboxSession,
  PendingAccounts,
  ResultStore,
} from './scannerPorts';

/** The probe's own check: no tag of a real check can name it, and it lives only in this process. */
const PROBE_CHECK_ID = 'deploy-probe';

/** The newest UIDs of each folder the probe reads: real header blocks to parse, one small fetch a folder. */
export const PROBE_REREAD_UIDS = 5;

export interface ProbeSweepDeps {
  connector: MailboxConnector;
  credentials: CredentialSource;
  clock: Clock;
  log: Logger;
}

/** One check waiting for the probed account; results are kept here, never in the table. */
class ProbeChecks implements ActiveChecks, ResultStore {
  readonly recorded = new Set<string>();
  constructor(private readonly check: PendingAccounts) {}
  async listActive(): Promise<PendingAccounts[]> {
    return [this.check];
  }
  async settle() {
    return [];
  }
  async recordResult(checkId: string, email: string): Promise<RecordOutcome> {
    const key = `${checkId} ${email}`;
    if (this.recorded.has(key)) return 'already-recorded';
    this.recorded.add(key);
    return 'recorded';
  }
}

/**
 * Each folder's cursor PROBE_REREAD_UIDS below its top, from the session's listing (the scanner asks for cursors as
 * it logs in, before it lists: the answer waits for the listing); the sweep's moves stay in memory.
 */
class ProbeCursors implements CursorStore {
  private kept: Map<string, FolderCursor> | undefined;
  constructor(private readonly listed: Promise<FolderState[]>) {}
  async all(): Promise<Map<string, FolderCursor>> {
    this.kept ??= new Map(
      (await this.listed).map((folder) => [
        folder.path,
        { uidValidity: folder.uidValidity, lastUid: Math.max(0, folder.uidNext - 1 - PROBE_REREAD_UIDS) },
      ]),
    );
    return new Map(this.kept);
  }
  async get(_email: string, path: string) {
    return (await this.all()).get(path);
  }
  async put(_email: string, path: string, cursor: FolderCursor) {
    await this.all();
    this.kept?.set(path, cursor);
  }
  async putAll(_email: string, cursors: ReadonlyMap<string, FolderCursor>) {
    this.kept = new Map(cursors);
  }
}

/** Keeps the account's failure in memory (its text for the probe's reason), never in the registry. */
class ProbeHealth implements AccountHealthStore {
  failure: string | undefined;
  async recordFailure(_email: string, error: string) {
    this.failure = error;
    return false;
  }
  async recordSuccess() {
    return false;
  }
  async listFailing() {
    return [];
  }
}

/** The folder listing a session answers first, told to whoever waits for it (a failed one fails them too). */
const firstListing = () => {
  let tell: (folders: FolderState[]) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const listed = new Promise<FolderState[]>((resolve, reject) => {
    [tell, fail] = [resolve, reject];
  });
  listed.catch(() => undefined); // the sweep reports the failure; no waiter may be left unhandled
  return { listed, tell, fail };
};

/** The session, telling `listing` its folder listing (a sweep of the probe reads every folder listed). */
const told = (session: MailboxSession, listing: ReturnType<typeof firstListing>): MailboxSession => ({
  gmail: session.gmail,
  get usable() {
    return session.usable;
  },
  folders: async () => {
    try {
      const folders = await session.folders();
      listing.tell(folders);
      return folders;
    } catch (error) {
      listing.fail(error);
      throw error;
    }
  },
  headersAfter: (path, afterUid, upToUid) => session.headersAfter(path, afterUid, upToUid),
  headersSince: (path, since) => session.headersSince(path, since),
  tabsOf: (path, uids) => session.tabsOf(path, uids),
  close: () => session.close(),
});

/** Server text in a failure is capped and kept to one line: it comes from the mailbox's server. */
const reasonOf = (text: string): string => text.replace(/\s+/g, ' ').slice(0, 200);

/**
 * Sweeps `email` once with the Scanner and judges it: passed when the sweep succeeded and the account has an
 * inbox to read; not checked when no account is given (none registered and healthy), never passed.
 */
export const sweepOneAccount = async (
  deps: ProbeSweepDeps,
  email: string | undefined,
): Promise<ProbeOutcome> => {
  if (email === undefined)
    return { status: 'not-checked', reason: 'no active, healthy account registered: nothing was swept' };
  const account = await deps.credentials.get(email);
  if (!account) return { status: 'failed', account: email, reason: 'the account has no credentials' };
  const checks = new ProbeChecks({ checkId: PROBE_CHECK_ID, createdAt: deps.clock.now(), pending: [email] });
  const health = new ProbeHealth();
  const listing = firstListing();
  const connector: MailboxConnector = {
    open: async (credentials, signal) => told(await deps.connector.open(credentials, signal), listing),
  };
  const scanner = new Scanner({
    ...{ checks, health, credentials: deps.credentials, connector },
    ...{ cursors: new ProbeCursors(listing.listed), clock: deps.clock, log: deps.log, watch: false },
  });
  const [sweep] = await scanner.sweepOnce().finally(() => scanner.close(0));
  if (!sweep?.ok)
    return { status: 'failed', account: email, reason: reasonOf(health.failure ?? 'the sweep failed') };
  const folders = scanFolders(await listing.listed, account.folders);
  const summary = { account: email, folders: folders.length, messages: sweep.messagesFetched };
  if (!folders.some((folder) => isInbox(folder.category)))
    return { status: 'failed', ...summary, reason: 'no inbox folder found' };
  return {
    status: 'passed',
    ...summary,
    reason: `swept ${folders.length} folder(s), read ${sweep.messagesFetched} message(s), recorded only in memory`,
  };
};
