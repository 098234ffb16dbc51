// The loop's patience on the injected clock: a check's accounts are held (watched, swept on push) for a window after
// its start or its last placed copy; past it the loop stops, and an account only late checks wait for is swept once
// a schedule's minute, with no watch, by whichever loop runs.
import { describe, expect, it } from 'vitest';
import { newCheckId } from '../../shared/domain/checkId';
import { createLogger } from '../../shared/log';
import { ActiveCheckPlan, SCAN_SCHEDULE_MS, waitingAccounts } from '../../shared/scanner/planning';
import { Scanner } from '../../shared/scanner/Scanner';
import { emptySweep } from '../../shared/scanner/scanHooks';
import { runScanLoop } from '../../shared/scanner/scanLoop';
import type {
  FetchedHeaders,
  FolderState,
  Lease,
  MailboxConnector,
  PendingAccounts,
} from '../../shared/scanner/scannerPorts';
import { ManualClock } from '../support/manualClock';
import { credentialsOf, MemoryCursors } from '../support/scannerFakes';

const log = createLogger('test', 'error', () => undefined);
const PATIENCE_MS = 30_000;
const INTERVAL_MS = 1000;
const INBOX: FolderState[] = [{ path: 'INBOX', flags: [], uidNext: 1, uidValidity: '1' }];

const lease: Lease = { acquire: async () => true, release: async () => undefined };

/** Empty mailboxes with push (NOTIFY), counting each account's sweeps (by its listing) and its watches opened. */
const pushMailboxes = (clock: ManualClock) => {
  const sweeps = new Map<string, number[]>();
  const watched: string[] = [];
  const connector: MailboxConnector = {
    async open(credentials) {
      return {
        gmail: false,
        folders: async () => {
          sweeps.set(credentials.email, [...(sweeps.get(credentials.email) ?? []), clock.now()]);
          return INBOX;
        },
        headersAfter: async () => [],
        headersSince: async () => [],
        tabsOf: async () => new Map(),
        close: async () => undefined,
      };
    },
    async watchAll(credentials) {
      watched.push(credentials.email);
      return { usable: true, close: async () => undefined };
    },
  };
  return { connector, sweeps, watched };
};

/** A scanner whose store lists what `listing` gives at the clock's now, nothing ever placed. */
const scannerOver = (
  clock: ManualClock,
  connector: MailboxConnector,
  listing: (now: number) => PendingAccounts[],
  patienceMs: number | undefined,
) =>
  new Scanner({
    checks: {
      listActive: async (now) => listing(now),
      settle: async () => [],
      recordResult: async () => 'recorded' as const,
    },
    cursors: new MemoryCursors(),
    credentials: { get: async (email) => credentialsOf(email) },
    connector,
    clock,
    log,
    watch: true,
    ...(patienceMs === undefined ? {} : { patienceMs }),
  });

const loopOptions = (clock: ManualClock, idleGraceMs: number) => ({
  owner: 'me',
  intervalMs: INTERVAL_MS,
  leaseTtlMs: 5 * INTERVAL_MS,
  idleGraceMs,
  lingerMs: INTERVAL_MS,
  deadline: clock.now() + 280_000,
});

describe('patience', () => {
  it('a lone check that never completes holds the loop for its window, not to the deadline', async () => {
    const clock = new ManualClock();
    const startedAt = clock.now();
    const { connector, watched } = pushMailboxes(clock);
    const check = { checkId: 'c1', createdAt: startedAt, pending: ['late@mail.test'] };
    const scanner = scannerOver(clock, connector, () => [check], PATIENCE_MS);
    const report = await runScanLoop({ scanner, lease, clock, log }, loopOptions(clock, 10_000));
    expect(report.stoppedBecause).toBe('idle');
    // The window, then one linger: a loop billed about 31 s where it held the account for 280.
    expect(clock.now() - startedAt).toBeGreaterThanOrEqual(PATIENCE_MS);
    expect(clock.now() - startedAt).toBeLessThanOrEqual(PATIENCE_MS + 3 * INTERVAL_MS);
    expect(watched).toEqual(['late@mail.test']);
  });

  it('without patience the same loop runs to its deadline (what the window saves)', async () => {
    const clock = new ManualClock();
    const { connector } = pushMailboxes(clock);
    const check = { checkId: 'c1', createdAt: clock.now(), pending: ['late@mail.test'] };
    const scanner = scannerOver(clock, connector, () => [check], undefined);
    const report = await runScanLoop({ scanner, lease, clock, log }, loopOptions(clock, 10_000));
    expect(report.stoppedBecause).toBe('deadline');
  });

  it("the schedule's loop sweeps a late check's account once, opens no watch, and stops", async () => {
    const clock = new ManualClock();
    const { connector, sweeps, watched } = pushMailboxes(clock);
    const check = { checkId: 'c1', createdAt: clock.now() - 2 * 60_000, pending: ['late@mail.test'] };
    const scanner = scannerOver(clock, connector, () => [check], PATIENCE_MS);
    const report = await runScanLoop({ scanner, lease, clock, log }, loopOptions(clock, 0));
    // Its sweep ends, one more look finds nothing due, and it stops.
    expect(report).toMatchObject({ stoppedBecause: 'idle', ticks: 2 });
    expect(sweeps.get('late@mail.test')).toHaveLength(1);
    expect(watched).toEqual([]);
  });

  it('a loop held by a fresh check sweeps a late account a schedule apart, not every tick', async () => {
    const clock = new ManualClock();
    const startedAt = clock.now();
    const { connector, sweeps, watched } = pushMailboxes(clock);
    const late = { checkId: 'old', createdAt: startedAt - 60_000, pending: ['late@mail.test'] };
    // A check that is always fresh keeps the loop running to its deadline.
    const fresh = (now: number) => ({ checkId: `new-${now}`, createdAt: now, pending: ['busy@mail.test'] });
    const scanner = scannerOver(clock, connector, (now) => [late, fresh(now)], PATIENCE_MS);
    const options = {
      ...loopOptions(clock, 0),
      deadline: startedAt + 2 * SCAN_SCHEDULE_MS + 5 * INTERVAL_MS,
    };
    const report = await runScanLoop({ scanner, lease, clock, log }, options);
    expect(report.stoppedBecause).toBe('deadline');
    const lateSweeps = (sweeps.get('late@mail.test') ?? []).map((at) => at - startedAt);
    expect(lateSweeps).toEqual([0, SCAN_SCHEDULE_MS, 2 * SCAN_SCHEDULE_MS]);
    expect(watched).toEqual(['busy@mail.test']);
  });
});

describe('a copy waiting for its Gmail tab', () => {
  it("keeps a late check's account held until its tab grace decides it", async () => {
    const clock = new ManualClock();
    const startedAt = clock.now();
    const checkId = newCheckId();
    const email = 'seed@mail.test';
    const message: FetchedHeaders = {
      uid: 7,
      internalDate: startedAt - 60_000,
      headers: Buffer.from(`To: seed+tc_${checkId}@mail.test\r\nSubject: hello\r\n\r\n`),
    };
    const connector: MailboxConnector = {
      async open() {
        return {
          gmail: true,
          folders: async () => [{ path: 'INBOX', flags: [], uidNext: 8, uidValidity: '1' }],
          headersAfter: async (_path, afterUid) => (afterUid < message.uid ? [message] : []),
          headersSince: async () => [message],
          // Gmail's search index has not caught up: no tab names the copy.
          tabsOf: async () => new Map(),
          close: async () => undefined,
        };
      },
    };
    const recorded: { category: string; at: number }[] = [];
    const late = { checkId, createdAt: startedAt - 2 * 60_000, pending: [email] };
    const scanner = new Scanner({
      checks: {
        listActive: async () => (recorded.length > 0 ? [] : [late]),
        settle: async () => [],
        recordResult: async (_id, _email, category) => {
          recorded.push({ category, at: clock.now() });
          return 'recorded' as const;
        },
      },
      cursors: new MemoryCursors(),
      credentials: { get: async (address) => credentialsOf(address) },
      connector,
      clock,
      log,
      patienceMs: PATIENCE_MS,
      tabGraceMs: 60_000,
    });
    // The schedule's loop: no grace, a check past its window.
    const report = await runScanLoop({ scanner, lease, clock, log }, loopOptions(clock, 0));
    expect(report.stoppedBecause).toBe('idle');
    expect(recorded.map(({ category }) => category)).toEqual(['unknown']);
    expect((recorded[0]?.at ?? 0) - startedAt).toBeGreaterThanOrEqual(60_000);
  });
});

describe('a backlog being drained', () => {
  it("keeps a late check's account held until the backlog is read", async () => {
    const clock = new ManualClock();
    const email = 'busy@mail.test';
    const BACKLOG = 5000;
    const cursors = new MemoryCursors();
    await cursors.put(email, 'INBOX', { uidValidity: '1', lastUid: 0 });
    const connector: MailboxConnector = {
      async open() {
        return {
          gmail: false,
          folders: async () => [
            { path: 'INBOX', flags: [], uidNext: BACKLOG + 1, uidValidity: '1', messages: BACKLOG },
          ],
          // Old mail, no check's copy among it.
          headersAfter: async (_path, afterUid, upToUid) =>
            Array.from({ length: Math.max(0, Math.min(upToUid, BACKLOG) - afterUid) }, (_, index) => ({
              uid: afterUid + index + 1,
              internalDate: 0,
              headers: Buffer.from('Subject: old\r\n\r\n'),
            })),
          headersSince: async () => [],
          tabsOf: async () => new Map(),
          close: async () => undefined,
        };
      },
    };
    const late = { checkId: 'old', createdAt: clock.now() - 2 * 60_000, pending: [email] };
    const scanner = new Scanner({
      checks: {
        listActive: async () => [late],
        settle: async () => [],
        recordResult: async () => 'recorded' as const,
      },
      cursors,
      credentials: { get: async (address) => credentialsOf(address) },
      connector,
      clock,
      log,
      patienceMs: PATIENCE_MS,
    });
    // The schedule's loop: no grace, a check past its window, a backlog more than one sweep deep.
    const report = await runScanLoop({ scanner, lease, clock, log }, loopOptions(clock, 0));
    expect(report.stoppedBecause).toBe('idle');
    expect((await cursors.get(email, 'INBOX'))?.lastUid).toBe(BACKLOG);
  });
});

describe('a loop stopping idle', () => {
  it('lets the sweeps its last tick started end before it closes, not cut them', async () => {
    const events: string[] = [];
    let finish: () => void = () => undefined;
    const sweep = new Promise<void>((resolve) => {
      finish = resolve;
    }).then(() => {
      events.push('swept');
      return emptySweep('late@mail.test');
    });
    let ticks = 0;
    const scanner = {
      tick: async () => ({
        activeChecks: 1,
        pendingAccounts: 1,
        heldAccounts: 0,
        started: ticks++ === 0 ? [sweep] : [],
      }),
      close: async () => {
        events.push('closed');
      },
    };
    // Time stands still: only the sweep's end (or an abort) can end a wait.
    const still = {
      now: () => 0,
      sleep: (_ms: number, signal?: AbortSignal) =>
        new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true })),
    };
    const loop = runScanLoop(
      { scanner, lease, clock: still, log },
      { ...loopOptions(new ManualClock(0), 0) },
    );
    await new Promise((resolve) => setImmediate(resolve));
    finish();
    // Then a second look, which starts nothing, and it stops.
    expect(await loop).toMatchObject({ stoppedBecause: 'idle', ticks: 2 });
    expect(events).toEqual(['swept', 'closed']);
  });
});

describe('waitingAccounts', () => {
  it("holds a check's accounts for the window after its start, and after its last placed copy", async () => {
    const startedAt = 1_000_000;
    const plan = new ActiveCheckPlan({
      listActive: async () => [{ checkId: 'c1', createdAt: startedAt, pending: ['a@x.test', 'b@x.test'] }],
      settle: async () => [],
    });
    const all = () => true;
    const at = async (offset: number) =>
      waitingAccounts(await plan.list(startedAt + offset), all, startedAt + offset, PATIENCE_MS);
    expect([...(await at(PATIENCE_MS - 1)).held]).toEqual(['a@x.test', 'b@x.test']);
    expect((await at(PATIENCE_MS)).held.size).toBe(0);
    // a's copy lands at 20 s: b is held again until 50 s, though the window after the start is over.
    plan.placed('c1', 'a@x.test', false, startedAt + 20_000);
    const after = await at(20_000 + PATIENCE_MS - 1);
    expect([...after.pending]).toEqual(['b@x.test']);
    expect([...after.held]).toEqual(['b@x.test']);
    expect((await at(20_000 + PATIENCE_MS)).held.size).toBe(0);
    expect((await at(20_000 + PATIENCE_MS)).pending.size).toBe(1);
    // a's copy found again later (already recorded) is no arrival: the window does not move.
    plan.placed('c1', 'a@x.test', false, startedAt + 40_000);
    expect((await at(20_000 + PATIENCE_MS)).held.size).toBe(0);
  });

  it("leaves out another shard's accounts", () => {
    const checks = [{ createdAt: 0, pending: new Set(['a@x.test', 'b@x.test']) }];
    const { pending, held } = waitingAccounts(checks, (email) => email.startsWith('a'), 0, PATIENCE_MS);
    expect([...pending]).toEqual(['a@x.test']);
    expect([...held]).toEqual(['a@x.test']);
  });
});
