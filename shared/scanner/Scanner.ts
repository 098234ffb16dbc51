// Owns one sweep of the test mailboxes end to end: it asks planning what to read, reads it, attributes and records.

import { StoreUnavailableError } from '../domain/errors';
import { isProvider, presetFor } from '../providers/presets';
import { type Announced, foldersToRead } from './focus';
import { SWEEP_BATCHES } from './folderReads';
import { type AccountSweepContext, sweepFolder } from './folderSweep';
import { scanFolders } from './folders';
import { ParkedSessions } from './parking';
import {
  ActiveCheckPlan,
  due,
  PROBE_EVERY_MS,
  retryAtAfter,
  SETTLE_EVERY_MS,
  waitingAccounts,
} from './planning';
import { type AccountState, advanceCursors, closingSignal, dropSession, sessionOf } from './reading';
import { Recorder } from './recording';
import type { ScannerDeps } from './ScannerDeps';
import { type AccountSweep, emptySweep, type TickReport } from './scanHooks';
import type { MailboxSession } from './scannerPorts';
import { inShard, SINGLE_SHARD } from './shards';
import { TabGrace } from './tabGrace';
import { Watches } from './watching';

export { FULL_LIST_EVERY_MS, INDEX_LAG_MS } from './planning';
export { LOOKBACK_MS } from './reading';
export type { AccountSweep, Placement, ScanEvents, TickReport } from './scanHooks';

/** How long close() waits for sweeps in flight; with the logout bound it stays well inside the Lambda's margin. */
const CLOSE_GRACE_MS = 5000;

export class Scanner {
  private readonly accounts = new Map<string, AccountState>();
  private readonly parked = new ParkedSessions();
  /** The accounts the last tick's listing said live checks wait for: the ones whose sessions are worth parking. */
  private waitedFor: ReadonlySet<string> = new Set();
  private readonly inflight = new Set<Promise<AccountSweep>>();
  private lastSettle = Number.NEGATIVE_INFINITY;
  private lastProbe = Number.NEGATIVE_INFINITY;
  /** Accounts whose failures the store held at the last probe: a success must clear them there. */
  private failuresOnRecord = new Set<string>();
  /** Aborted by close() to end connection attempts still waiting on a server; replaced so the scanner is reusable. */
  private closing = closingSignal();
  /** Set while close() lets sweeps finish: no new ones start, and a draining one stops after its current batch. */
  private winding = false;
  private readonly plan: ActiveCheckPlan;
  private readonly record: Recorder;
  private readonly tabs: TabGrace;
  private readonly watches: Watches;

  constructor(private readonly deps: ScannerDeps) {
    this.plan = new ActiveCheckPlan(deps.checks);
    this.record = new Recorder({ ...deps, awaited: (checkId) => this.plan.awaited(checkId) });
    this.tabs = new TabGrace(deps.tabGraceMs);
    this.watches = new Watches(deps, (email) => this.announced(email));
  }

  /** The session this scanner holds for `email` (in use or parked), for the audit's read of a copy: never a login. */
  heldSession(email: string): MailboxSession | undefined {
    const session = this.accounts.get(email)?.session;
    return session && session.usable !== false ? session : this.parked.held(email);
  }

  /** Starts a sweep of every account a live check waits for that is due (`force`: all), waiting for none. */
  async tick(force = false): Promise<TickReport> {
    const now = this.deps.clock.now();
    const shard = this.deps.shard ?? SINGLE_SHARD;
    // Settling only feeds metrics: it reads every recent check, so it runs beside the sweeps, not before them, and
    // in the first shard only (the one every wake-up runs), not once per shard.
    const settling =
      shard.index === 0 && due(now, this.lastSettle, SETTLE_EVERY_MS) ? this.settle(now) : undefined;
    settling?.catch(() => undefined); // awaited below: a failure meanwhile must not go unhandled
    const mine = (email: string) => inShard(email, shard);
    const patienceMs = this.deps.patienceMs ?? Infinity;
    const started: Promise<AccountSweep>[] = [];
    const considered = new Set<string>();
    const sweep = (email: string) => {
      // Once a tick, whether it was started from a page of the listing or after it.
      if (considered.has(email)) return;
      considered.add(email);
      // A watched account is swept on its announcements and every SAFETY_SWEEP_MS, any other at every tick.
      const sweeping = (force || this.watches.due(email, now)) && this.start(email, force);
      if (sweeping) started.push(sweeping);
    };
    // A loop's first listing can be long (every active check): its accounts log in as each page is read, and their
    // sweeps judge copies once it is whole (sweepAccount).
    const active = await this.plan.list(now, (page) => {
      for (const email of waitingAccounts(page, mine, now, patienceMs).pending) sweep(email);
    });
    const { pending, held } = waitingAccounts(active, mine, now, patienceMs);
    this.waitedFor = pending;
    // Work a stopped loop would leave undone stays held: a copy waiting for its Gmail tab (the grace, kept by this
    // loop, would start again at every scheduled sweep) and a backlog being drained (a sweep a minute would crawl).
    for (const email of pending)
      if (this.tabs.waitsIn(email) || this.accounts.get(email)?.backlog) held.add(email);
    this.watches.hold(held);
    this.deps.events?.ticked?.({ activeChecks: active.length, pendingAccounts: pending.size });
    const toSweep = new Set(pending);
    // Only while checks are active: an idle scanner logs in nowhere, so it costs nothing at the providers.
    if (this.deps.health && active.length > 0 && due(now, this.lastProbe, PROBE_EVERY_MS)) {
      this.lastProbe = now;
      const failing = (await this.deps.health.listFailing()).filter(({ email }) => inShard(email, shard));
      this.failuresOnRecord = new Set(failing.map(({ email }) => email));
      const unhealthy = failing.filter((account) => account.unhealthy).map(({ email }) => email);
      this.deps.events?.probed?.({ unhealthyAccounts: unhealthy.length });
      for (const email of unhealthy) toSweep.add(email);
    }
    for (const email of toSweep) sweep(email);
    await settling;
    return { activeChecks: active.length, pendingAccounts: pending.size, heldAccounts: held.size, started };
  }

  private async settle(now: number): Promise<void> {
    this.lastSettle = now;
    for (const check of await this.deps.checks.settle(now)) this.deps.events?.settled?.(check);
  }

  /**
   * A watch announced new mail: the account is swept now, not at the next tick, whether or not a check this scanner
   * has listed waits for it. The copy may be for a check started after the last listing (a check's mail can be
   * announced before the next tick lists the check: waiting for that tick cost such copies up to an interval, seen
   * tracing the detection bench); its tag names the check, and the store's write is conditional anyway.
   */
  private announced(email: string): void {
    if (!this.closing.signal.aborted && !this.winding) this.start(email);
  }

  /** Starts a sweep of the account unless one is running or it is backing off; one announced meanwhile follows. */
  private start(email: string, full = false): Promise<AccountSweep> | undefined {
    const state = this.stateOf(email);
    if (state.busy || state.retryAt > this.deps.clock.now()) return undefined;
    state.busy = true;
    const announced = this.watches.sweeping(email, this.deps.clock.now());
    const sweep = this.sweepAccount(email, state, full ? undefined : announced).finally(() => {
      state.busy = false;
      this.inflight.delete(sweep);
    });
    this.inflight.add(sweep);
    // Not after a failed sweep: the backoff (or the store's next tick) decides when that account is read again.
    // After one that left a backlog, the next follows at once, whether or not a check waits for the account.
    void sweep.then(
      (report) => report.ok && (this.watches.hasNews(email) || state.backlog) && this.announced(email),
    );
    return sweep;
  }

  /** One full sweep of every pending account, watched or not, waiting for each: for tests and tools. */
  async sweepOnce(): Promise<AccountSweep[]> {
    const { started } = await this.tick(true);
    return Promise.all(started);
  }

  /** Waits for every account sweep still running (not settling checks: that is ActiveChecks.settle). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inflight]);
  }

  /** Lets sweeps finish for `graceMs`, then closes watches and sessions; `park` (a loop ending) keeps some. */
  async close(graceMs = CLOSE_GRACE_MS, park = false): Promise<void> {
    const graceOver = new AbortController();
    this.winding = true;
    await Promise.race([this.drain(), this.deps.clock.sleep(graceMs, graceOver.signal)]);
    graceOver.abort();
    const sessions = this.parked.park(this.accounts, this.waitedFor, this.deps.clock.now(), park);
    this.accounts.clear();
    // The next loop starts afresh, as a new Lambda process would: a full listing (checks may have completed
    // elsewhere in between), and a probe that learns which accounts have failures on record to clear.
    this.plan.reset();
    this.tabs.reset();
    this.lastProbe = Number.NEGATIVE_INFINITY;
    this.closing.abort();
    await Promise.allSettled([...sessions.map((session) => session.close()), this.watches.close()]);
    await this.drain();
    this.closing = closingSignal();
    this.winding = false;
  }

  private stateOf(email: string): AccountState {
    const known = this.accounts.get(email);
    if (known) return known;
    const state: AccountState = { busy: false, failures: 0, retryAt: 0 };
    this.parked.adopt(email, state, this.deps.clock.now());
    this.accounts.set(email, state);
    return state;
  }

  private async sweepAccount(email: string, state: AccountState, news?: Announced): Promise<AccountSweep> {
    const startedAt = performance.now();
    const report = emptySweep(email);
    const { cursors } = this.deps;
    try {
      const credentials = await this.deps.credentials.get(email);
      if (!credentials) throw new Error('no credentials for this account');
      const session = await sessionOf(state, this.deps.connector, cursors, credentials, this.closing.signal);
      const pushed = this.watches.pushes(email);
      const { folders, reader, focused } = await foldersToRead(
        session,
        state,
        cursors,
        credentials,
        news,
        pushed,
      );
      const evidence = isProvider(credentials.provider)
        ? presetFor(credentials.provider).quirks.envelopeEvidence.value
        : undefined;
      const chosen = scanFolders(folders, credentials.folders);
      if (this.deps.watch && !focused) this.watches.keep(credentials, chosen, this.closing.signal);
      const moved: NonNullable<AccountState['cursors']> = new Map();
      const context: AccountSweepContext = {
        ...{ deps: this.deps, plan: this.plan, record: this.record, tabs: this.tabs, watches: this.watches },
        ...{ email, state, credentials, session, reader, evidence, report, moved },
        budget: { batches: SWEEP_BATCHES },
        winding: () => this.winding,
      };
      let [backlog, stalled] = [false, false];
      for (const folder of chosen) {
        const folderState = folders.find((candidate) => candidate.path === folder.path);
        if (!folderState) continue;
        const swept = await sweepFolder(context, folder, folderState);
        backlog ||= swept.unfinished;
        stalled ||= swept.stalled;
        if (stalled) break;
      }
      await advanceCursors(cursors, email, state, moved);
      state.backlog = backlog || stalled;
      report.ok = true;
      state.parked = false;
      if (stalled) await dropSession(state);
      const hadFailures = !stalled && (state.failures > 0 || this.failuresOnRecord.has(email));
      if (!stalled) [state.failures, state.retryAt] = [0, 0];
      // Only when there is something to clear: the store's write is conditional, but a refused one is billed too.
      if (hadFailures && this.deps.health) {
        this.failuresOnRecord.delete(email);
        await this.record.success(email);
      }
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        // The store failed, not the mailbox: no failure counted, the session kept, the cursor where the last
        // recorded message left it; the next tick reads the same messages again and records them once.
        this.deps.log.warn('store unavailable during a sweep; the account is read again next tick', {
          account: email,
          reason: error.reason,
        });
      } else if (state.parked) {
        // A parked session the server dropped meanwhile says nothing of the mailbox: log in afresh, sweep again.
        state.parked = false;
        await dropSession(state);
        return this.sweepAccount(email, state);
      } else {
        await this.sweepFailed(email, state, error);
      }
    }
    this.watches.swept(email, report.ok);
    report.durationMs = Math.round((performance.now() - startedAt) * 100) / 100;
    report.consecutiveFailures = state.failures;
    this.deps.events?.swept?.(report);
    return report;
  }

  /** Counts a failed sweep against the mailbox and backs off. */
  private async sweepFailed(email: string, state: AccountState, error: unknown): Promise<void> {
    state.failures++;
    state.retryAt = retryAtAfter(state.failures, this.deps.clock.now());
    await dropSession(state);
    await this.record.failure(email, error, state.failures);
  }
}
