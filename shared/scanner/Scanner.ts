// Owns sweeping the test mailboxes: which accounts to read, reading only what is new, recording each placement once.

import { setMaxListeners } from 'node:events';
import { DEFAULT_UNHEALTHY_AFTER } from '../domain/account';
import type { DetectedCategory } from '../domain/categories';
import { activeCutoff, isActive } from '../domain/check';
import type { Clock } from '../domain/clock';
import type { RecordOutcome } from '../domain/ports';
import type { Logger } from '../log';
import { type MsDelivery, msDeliveryOf } from '../providers/msDelivery';
import { scanFolders } from './folders';
import { headerBlockOf, MS_DELIVERY_HEADER, tagsInBlock, valueInBlock } from './headers';
import type {
  AccountHealthStore,
  ActiveChecks,
  CredentialSource,
  CursorStore,
  FetchedHeaders,
  FolderCursor,
  FolderState,
  MailboxConnector,
  MailboxCredentials,
  MailboxSession,
  ResultStore,
  SettledCheck,
} from './ports';
import { ResultBatcher } from './ResultBatcher';
import { inShard, type Shard, SINGLE_SHARD } from './shards';

/** On first sight of a folder, only this much history can hold a copy for a check that is still alive. */
export const LOOKBACK_MS = 10 * 60 * 1000;
const MAX_BACKOFF_MS = 60_000;
/** Completions and timeouts are counted this often; they only feed metrics, so a few seconds late is fine. */
const SETTLE_EVERY_MS = 15_000;
/**
 * Between full listings of the active checks, a tick lists only the checks started since the newest it knows, less
 * this much for the index's lag and the API's clock: every tick reading every active check with all its results
 * cost 1 s and 1,250 read units per tick at 1,000 checks of 200 accounts.
 */
export const INDEX_LAG_MS = 10_000;
/** A full listing this often (and at each loop's start) catches whatever the incremental ones could miss. */
export const FULL_LIST_EVERY_MS = 30_000;
/** Unhealthy accounts are tried this often, so one that works again comes back without anyone's help. */
const PROBE_EVERY_MS = 60_000;
/** How long close() waits for sweeps in flight; with the logout bound it stays well inside the Lambda's margin. */
const CLOSE_GRACE_MS = 5000;

export interface ScannerDeps {
  checks: ActiveChecks & ResultStore;
  cursors: CursorStore;
  credentials: CredentialSource;
  /** Where failures in a row are counted; without it (tests of other parts) health is not tracked. */
  health?: AccountHealthStore;
  /** Failed sweeps in a row after which an account leaves new checks (default DEFAULT_UNHEALTHY_AFTER). */
  unhealthyAfter?: number;
  connector: MailboxConnector;
  clock: Clock;
  log: Logger;
  /** Told what the scanner does, for metrics and tests; every hook is optional. */
  events?: ScanEvents;
  /** The accounts this scanner sweeps when several loops share them (default: all of them). */
  shard?: Shard;
}

export interface ScanEvents {
  /** Every tagged copy found, recorded or not. */
  placed?(placement: Placement): void;
  /** Every account sweep, successful or not. */
  swept?(sweep: AccountSweep): void;
  /** Every tick, with the number of checks still waiting. */
  ticked?(tick: { activeChecks: number; pendingAccounts: number }): void;
  /** Every probe of the accounts taken out of new checks, with how many there are. */
  probed?(probe: { unhealthyAccounts: number }): void;
  /** An account just left new checks (`unhealthy`) or came back (`recovered`). */
  healthChanged?(change: { email: string; state: 'unhealthy' | 'recovered'; error?: string }): void;
  /** Every check this scanner settled as complete or timed out (each check is settled once, by one scanner). */
  settled?(check: SettledCheck): void;
}

export interface Placement {
  checkId: string;
  email: string;
  provider: string;
  folder: string;
  category: DetectedCategory;
  outcome: RecordOutcome;
  /** When the copy reached the mailbox (INTERNALDATE), ms since the epoch. */
  deliveredAt: number;
  recordedAt: number;
  /** Outlook's X-Microsoft-Antispam-Mailbox-Delivery verdict, where the copy carries one. */
  providerVerdict?: MsDelivery;
}

const disagrees = (verdict: MsDelivery, category: DetectedCategory): boolean =>
  verdict === 'junk' ? category !== 'spam' : category === 'spam' || category === 'trash';

export interface TickReport {
  activeChecks: number;
  pendingAccounts: number;
  /** Sweeps started by this tick; accounts still busy from an earlier tick or backing off are not restarted. */
  started: Promise<AccountSweep>[];
}

export interface AccountSweep {
  email: string;
  ok: boolean;
  foldersRead: number;
  messagesFetched: number;
  placements: number;
  /** Wall time of the sweep, in milliseconds to two decimals. */
  durationMs: number;
  /** Sweeps of this account that failed in a row, this one included; 0 after a success. */
  consecutiveFailures: number;
}

interface AccountState {
  session?: MailboxSession;
  /** Folder cursors as last read or written by this scanner; the store is read once per account and loop. */
  cursors?: Map<string, FolderCursor>;
  busy: boolean;
  failures: number;
  retryAt: number;
}

/** Every connection attempt of a sweep listens on it, a hundred at once on a shard's first sweep: no leak warning. */
const closingSignal = () => {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
};

export class Scanner {
  private readonly accounts = new Map<string, AccountState>();
  private readonly inflight = new Set<Promise<AccountSweep>>();
  private lastSettle = Number.NEGATIVE_INFINITY;
  private lastProbe = Number.NEGATIVE_INFINITY;
  /** The active checks this scanner knows of, with the accounts it still waits for in each. */
  private readonly active = new Map<string, { createdAt: number; pending: Set<string> }>();
  /** Newest start among the checks listed so far; undefined before the first listing. */
  private listedUntil: number | undefined;
  private lastFullList = Number.NEGATIVE_INFINITY;
  /** Accounts whose failures the store held at the last probe: a success must clear them there. */
  private failuresOnRecord = new Set<string>();
  /** Aborted by close() to end connection attempts still waiting on a server; replaced so the scanner is reusable. */
  private closing = closingSignal();

  private readonly results: ResultBatcher;

  constructor(private readonly deps: ScannerDeps) {
    this.results = new ResultBatcher(deps.checks, deps.clock);
  }

  /** Starts a sweep of every account that a live check still waits for, without waiting for any of them. */
  async tick(): Promise<TickReport> {
    const now = this.deps.clock.now();
    if (now - this.lastSettle >= SETTLE_EVERY_MS) {
      this.lastSettle = now;
      for (const settled of await this.deps.checks.settle(now)) this.deps.events?.settled?.(settled);
    }
    const shard = this.deps.shard ?? SINGLE_SHARD;
    const active = await this.activeChecks(now);
    const pending = new Set(
      active.flatMap((check) => [...check.pending]).filter((email) => inShard(email, shard)),
    );
    this.deps.events?.ticked?.({ activeChecks: active.length, pendingAccounts: pending.size });
    const toSweep = new Set(pending);
    // Only while checks are active: an idle scanner logs in nowhere, so it costs nothing at the providers.
    if (this.deps.health && active.length > 0 && now - this.lastProbe >= PROBE_EVERY_MS) {
      this.lastProbe = now;
      const failing = (await this.deps.health.listFailing()).filter(({ email }) => inShard(email, shard));
      this.failuresOnRecord = new Set(failing.map(({ email }) => email));
      const unhealthy = failing.filter((account) => account.unhealthy).map(({ email }) => email);
      this.deps.events?.probed?.({ unhealthyAccounts: unhealthy.length });
      for (const email of unhealthy) toSweep.add(email);
    }
    const started: Promise<AccountSweep>[] = [];
    for (const email of toSweep) {
      const state = this.stateOf(email);
      if (state.busy || state.retryAt > now) continue;
      state.busy = true;
      const sweep = this.sweepAccount(email, state).finally(() => {
        state.busy = false;
        this.inflight.delete(sweep);
      });
      this.inflight.add(sweep);
      started.push(sweep);
    }
    return { activeChecks: active.length, pendingAccounts: pending.size, started };
  }

  /**
   * The active checks: the store's listing of those started lately (all of them at first and every 30 s), merged
   * with what this scanner knows of the older ones. An account leaves a check's pending set when the store no
   * longer lists it as pending or this scanner has written (or found written) its result.
   */
  private async activeChecks(now: number) {
    // A clock that went back (or a check stamped ahead by another machine's clock) must not hide new checks: the
    // mark never passes this scanner's now, and a jump back lists everything again.
    const full =
      this.listedUntil === undefined ||
      now < this.lastFullList ||
      now - this.lastFullList >= FULL_LIST_EVERY_MS;
    const since = full
      ? activeCutoff(now)
      : Math.max(activeCutoff(now), (this.listedUntil ?? now) - INDEX_LAG_MS);
    const listed = await this.deps.checks.listActive(now, full ? undefined : since);
    if (full) this.lastFullList = now;
    const seen = new Set<string>();
    for (const entry of listed) {
      seen.add(entry.checkId);
      const known = this.active.get(entry.checkId);
      const pending = known ? entry.pending.filter((email) => known.pending.has(email)) : entry.pending;
      this.active.set(entry.checkId, { createdAt: entry.createdAt ?? now, pending: new Set(pending) });
      if (entry.createdAt !== undefined)
        this.listedUntil = Math.max(this.listedUntil ?? entry.createdAt, entry.createdAt);
    }
    this.listedUntil = Math.min(this.listedUntil ?? now, now);
    for (const [checkId, check] of this.active) {
      // Within the window just listed, the store's word is final: a check it left out is complete or gone.
      const listedWindow = full || check.createdAt >= since;
      if ((listedWindow && !seen.has(checkId)) || !isActive(check, now) || check.pending.size === 0)
        this.active.delete(checkId);
    }
    return [...this.active.values()];
  }

  /** One full sweep, waiting for every account: for tests and tools that need a finished sweep. */
  async sweepOnce(): Promise<AccountSweep[]> {
    const { started } = await this.tick();
    return Promise.all(started);
  }

  /** Waits for every account sweep still running. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }

  /**
   * Lets sweeps in flight finish for up to `graceMs`, then closes every session, which also ends any sweep still
   * stuck on a slow server: the Lambda deadline must hold whatever a mailbox does.
   */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.settle(), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    const sessions = [...this.accounts.values()].flatMap((state) => (state.session ? [state.session] : []));
    this.accounts.clear();
    // The next loop starts afresh, as a new Lambda process would: a full listing (checks may have completed
    // elsewhere in between), and a probe that learns which accounts have failures on record to clear.
    this.active.clear();
    this.listedUntil = undefined;
    this.lastProbe = Number.NEGATIVE_INFINITY;
    this.closing.abort();
    await Promise.allSettled(sessions.map((session) => session.close()));
    await this.settle();
    this.closing = closingSignal();
  }

  private stateOf(email: string): AccountState {
    let state = this.accounts.get(email);
    if (!state) {
      state = { busy: false, failures: 0, retryAt: 0 };
      this.accounts.set(email, state);
    }
    return state;
  }

  private async sweepAccount(email: string, state: AccountState): Promise<AccountSweep> {
    const startedAt = performance.now();
    const report: AccountSweep = {
      email,
      ok: false,
      foldersRead: 0,
      messagesFetched: 0,
      placements: 0,
      durationMs: 0,
      consecutiveFailures: 0,
    };
    try {
      const credentials = await this.deps.credentials.get(email);
      if (!credentials) throw new Error('no credentials for this account');
      // A session that died while idle (imapflow ends one after socketMs of silence) is replaced, not failed on.
      if (state.session?.usable === false) delete state.session;
      state.session ??= await this.deps.connector.open(credentials, this.closing.signal);
      const session = state.session;
      const folders = await session.folders();
      for (const folder of scanFolders(folders, credentials.folders)) {
        const folderState = folders.find((candidate) => candidate.path === folder.path);
        const read = folderState && (await this.readNew(email, state, session, folderState));
        if (!read) continue;
        report.foldersRead++;
        report.messagesFetched += read.messages.length;
        report.placements += await this.place(
          credentials,
          session,
          folder.category,
          read.messages,
          folder.path,
        );
        // Results are written before the cursor moves, so a crash in between re-reads, never skips.
        await this.deps.cursors.put(email, folder.path, read.cursor);
        state.cursors?.set(folder.path, read.cursor);
      }
      const hadFailures = state.failures > 0 || this.failuresOnRecord.has(email);
      state.failures = 0;
      state.retryAt = 0;
      report.ok = true;
      // Only when there is something to clear: the store's write is conditional, but a refused one is billed too.
      if (hadFailures && this.deps.health) {
        this.failuresOnRecord.delete(email);
        if (await this.deps.health.recordSuccess(email).catch(() => false)) {
          this.deps.log.info('account sweeps work again', { account: email });
          this.deps.events?.healthChanged?.({ email, state: 'recovered' });
        }
      }
    } catch (error) {
      state.failures++;
      state.retryAt = this.deps.clock.now() + Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (state.failures - 1));
      const session = state.session;
      delete state.session;
      await session?.close().catch(() => undefined);
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      // Never the credentials: only the account and what went wrong.
      this.deps.log.warn('account sweep failed', {
        account: email,
        failures: state.failures,
        error: message,
        code: (error as { code?: unknown }).code,
      });
      await this.recordFailure(email, message);
    }
    report.durationMs = Math.round((performance.now() - startedAt) * 100) / 100;
    report.consecutiveFailures = state.failures;
    this.deps.events?.swept?.(report);
    return report;
  }

  private async recordFailure(email: string, message: string): Promise<void> {
    if (!this.deps.health) return;
    try {
      const threshold = this.deps.unhealthyAfter ?? DEFAULT_UNHEALTHY_AFTER;
      if (await this.deps.health.recordFailure(email, message, this.deps.clock.now(), threshold)) {
        this.deps.log.warn('account left new checks after failing repeatedly', {
          account: email,
          threshold,
          error: message,
        });
        this.deps.events?.healthChanged?.({ email, state: 'unhealthy', error: message });
      }
    } catch (caught) {
      this.deps.log.error('could not record an account failure', { account: email, error: caught });
    }
  }

  /** New messages of a folder since its cursor, or undefined when nothing changed (then nothing is fetched). */
  private async readNew(
    email: string,
    state: AccountState,
    session: MailboxSession,
    folder: FolderState,
  ): Promise<{ messages: FetchedHeaders[]; cursor: FolderCursor } | undefined> {
    state.cursors ??= await this.deps.cursors.all(email);
    const cursor = state.cursors.get(folder.path);
    const known = cursor?.uidValidity === folder.uidValidity;
    if (known && folder.uidNext - 1 <= cursor.lastUid) return undefined;
    const messages = known
      ? await session.headersAfter(folder.path, cursor.lastUid)
      : await session.headersSince(folder.path, this.deps.clock.now() - LOOKBACK_MS);
    const lastUid = Math.max(
      folder.uidNext - 1,
      known ? cursor.lastUid : 0,
      ...messages.map((message) => message.uid),
    );
    return { messages, cursor: { uidValidity: folder.uidValidity, lastUid } };
  }

  private async place(
    { email, provider }: MailboxCredentials,
    session: MailboxSession,
    folderCategory: DetectedCategory,
    messages: FetchedHeaders[],
    path: string,
  ): Promise<number> {
    const tagged = messages.flatMap((message) => {
      const block = headerBlockOf(message.headers);
      return block === undefined
        ? []
        : [...tagsInBlock(block, email)].map((checkId) => ({ checkId, message, block }));
    });
    const byTab = session.gmail && folderCategory === 'primary' && tagged.length > 0;
    const tabs = byTab
      ? await session.tabsOf(path, [...new Set(tagged.map(({ message }) => message.uid))])
      : new Map();
    for (const { checkId, message, block } of tagged) {
      const category =
        session.gmail && folderCategory === 'primary' ? (tabs.get(message.uid) ?? 'unknown') : folderCategory;
      const verdict = msDeliveryOf(valueInBlock(block, MS_DELIVERY_HEADER));
      if (verdict && disagrees(verdict, category)) {
        // The folder decides the category; a mismatch with Outlook's own stamp is worth a look, not a correction.
        this.deps.log.warn('provider verdict disagrees with the folder', {
          account: email,
          folder: path,
          category,
          verdict,
        });
      }
      const outcome = await this.results.record(checkId, email, category, {
        folder: path,
        providerVerdict: verdict,
      });
      // Written, by this scanner or before it; or the check is over: either way nothing more to wait for here.
      if (outcome === 'closed') this.active.delete(checkId);
      else this.active.get(checkId)?.pending.delete(email);
      const now = this.deps.clock.now();
      this.deps.events?.placed?.({
        checkId,
        email,
        provider,
        folder: path,
        category,
        outcome,
        deliveredAt: message.internalDate,
        recordedAt: now,
        ...(verdict ? { providerVerdict: verdict } : {}),
      });
    }
    return tagged.length;
  }
}
