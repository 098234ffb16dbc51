// Owns the deploy probe's sweep: one account read end to end by the real Scanner (login, folder listing, header
// fetches, attribution, recording), on stores the probe owns in memory, so nothing it records reaches a live check,
// a live cursor or the account's health; the live cursors are only read, to re-read messages the loops already read.

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

/**
 * Messages of each folder read again below the live cursor: enough to make the probe parse real header blocks, few
 * enough to stay one small fetch a folder. Where no cursor exists the sweep reads as at first sight (LOOKBACK_MS).
 */
export const PROBE_REREAD_UIDS = 5;

export interface ProbeSweepDeps {
  connector: MailboxConnector;
  credentials: CredentialSource;
  /** The live folder cursors, read and never written. */
  cursors: Pick<CursorStore, 'all'>;
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

/** The live cursors moved back PROBE_REREAD_UIDS, read once; the sweep's moves stay in memory. */
class ProbeCursors implements CursorStore {
  private readonly kept = new Map<string, Map<string, FolderCursor>>();
  constructor(private readonly live: Pick<CursorStore, 'all'>) {}
  async all(email: string): Promise<Map<string, FolderCursor>> {
    const known = this.kept.get(email);
    if (known) return new Map(known);
    const live = await this.live.all(email);
    const back = new Map(
      [...live].map(([path, cursor]) => [
        path,
        { ...cursor, lastUid: Math.max(0, cursor.lastUid - PROBE_REREAD_UIDS) },
      ]),
    );
    this.kept.set(email, back);
    return new Map(back);
  }
  async get(email: string, path: string) {
    return (await this.all(email)).get(path);
  }
  async put(email: string, path: string, cursor: FolderCursor) {
    await this.all(email);
    this.kept.get(email)?.set(path, cursor);
  }
  async putAll(email: string, cursors: ReadonlyMap<string, FolderCursor>) {
    this.kept.set(email, new Map(cursors));
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

/** The session, telling `seen` the folder listing it answered (a sweep of the probe reads every folder listed). */
const listing = (session: MailboxSession, seen: { folders?: FolderState[] }): MailboxSession => ({
  gmail: session.gmail,
  get usable() {
    return session.usable;
  },
  folders: async () => {
    seen.folders = await session.folders();
    return seen.folders;
  },
  headersAfter: (path, afterUid, upToUid) => session.headersAfter(path, afterUid, upToUid),
  headersSince: (path, since) => session.headersSince(path, since),
  tabsOf: (path, uids) => session.tabsOf(path, uids),
  close: () => session.close(),
});

/** The connector with its sessions' folder listing observed, for judging whether the account had an inbox to read. */
const listingOf = (connector: MailboxConnector) => {
  const seen: { folders?: FolderState[] } = {};
  const observed: MailboxConnector = {
    open: async (credentials, signal) => listing(await connector.open(credentials, signal), seen),
  };
  return { observed, seen };
};

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
  const { observed, seen } = listingOf(deps.connector);
  const scanner = new Scanner({
    ...{ checks, health, credentials: deps.credentials, connector: observed },
    ...{ cursors: new ProbeCursors(deps.cursors), clock: deps.clock, log: deps.log, watch: false },
  });
  const [sweep] = await scanner.sweepOnce().finally(() => scanner.close(0));
  if (!sweep?.ok)
    return { status: 'failed', account: email, reason: reasonOf(health.failure ?? 'the sweep failed') };
  const folders = scanFolders(seen.folders ?? [], account.folders);
  const summary = { account: email, folders: folders.length, messages: sweep.messagesFetched };
  if (!folders.some((folder) => isInbox(folder.category)))
    return { status: 'failed', ...summary, reason: 'no inbox folder found' };
  return {
    status: 'passed',
    ...summary,
    reason: `swept ${folders.length} folder(s), read ${sweep.messagesFetched} message(s), recorded only in memory`,
  };
};
