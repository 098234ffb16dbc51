// The scanner loop's economics: an idle loop logs in nowhere, a loop that has done its work stops soon, a kick
// that meets a loop just ending waits for its lease, and a shard sweeps only its own accounts.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/domain/clock';
import { createLogger } from '../../shared/log';
import { Scanner } from '../../shared/scanner/Scanner';
import { runScanLoop } from '../../shared/scanner/scanLoop';
import type { Lease, MailboxConnector, PendingAccounts } from '../../shared/scanner/scannerPorts';
import { inShard } from '../../shared/scanner/shards';
import { ManualClock } from '../support/manualClock';
import { credentialsOf, emptyMailboxes, fastLoopOptions, MemoryCursors } from '../support/scannerFakes';

const log = createLogger('test', 'error');

class MemoryLease implements Lease {
  holder: { owner: string; until: number } | undefined;
  async acquire(owner: string, now: number, ttlMs: number) {
    if (this.holder && this.holder.owner !== owner && this.holder.until > now) return false;
    this.holder = { owner, until: now + ttlMs };
    return true;
  }
  async release(owner: string) {
    if (this.holder?.owner === owner) this.holder = undefined;
  }
}

/** Active checks as a script: each listActive call takes the next answer, the last one repeating. */
const scriptedChecks = (answers: PendingAccounts[][]) => {
  let call = 0;
  return {
    listActive: async () => answers[Math.min(call++, answers.length - 1)] ?? [],
    settle: async () => [],
    recordResult: async () => 'recorded' as const,
  };
};

const scannerOver = (
  checks: ReturnType<typeof scriptedChecks>,
  connector: MailboxConnector,
  extra: { unhealthy?: string[]; shard?: { index: number; count: number } } = {},
) =>
  new Scanner({
    checks,
    cursors: new MemoryCursors(),
    credentials: { get: async (email) => credentialsOf(email) },
    health: {
      recordFailure: async () => false,
      recordSuccess: async () => false,
      listFailing: async () => (extra.unhealthy ?? []).map((email) => ({ email, unhealthy: true })),
    },
    connector,
    clock: systemClock,
    log,
    ...(extra.shard ? { shard: extra.shard } : {}),
  });

const options = fastLoopOptions();

describe('the scanner loop', () => {
  it('logs in nowhere when no check is active, even with unhealthy accounts waiting for a probe', async () => {
    const { connector, opened } = emptyMailboxes();
    const scanner = scannerOver(scriptedChecks([[]]), connector, { unhealthy: ['dead@mail.test'] });
    const report = await runScanLoop({ scanner, lease: new MemoryLease(), clock: systemClock, log }, options);
    expect(report).toMatchObject({ ran: true, stoppedBecause: 'idle', ticks: 1 });
    expect(opened).toEqual([]);
  });

  it('probes unhealthy accounts while a check is active', async () => {
    const { connector, opened } = emptyMailboxes();
    const checks = scriptedChecks([[{ checkId: 'c1', pending: ['a@mail.test'] }], []]);
    const scanner = scannerOver(checks, connector, { unhealthy: ['dead@mail.test'] });
    await runScanLoop({ scanner, lease: new MemoryLease(), clock: systemClock, log }, options);
    expect(opened.sort()).toEqual(['a@mail.test', 'dead@mail.test']);
  });

  it('after work, stops when its linger is over instead of waiting out the idle grace', async () => {
    const { connector } = emptyMailboxes();
    const checks = scriptedChecks([[{ checkId: 'c1', pending: ['a@mail.test'] }], []]);
    const scanner = scannerOver(checks, connector);
    const clock = new ManualClock();
    const startedAt = clock.now();
    const report = await runScanLoop(
      { scanner, lease: new MemoryLease(), clock, log },
      { ...options, deadline: startedAt + 60_000, idleGraceMs: 60_000, lingerMs: 0 },
    );
    expect(report).toMatchObject({ stoppedBecause: 'idle', ticks: 2 });
    // One interval of the loop's clock (between its two ticks), not the minute of idle grace.
    expect(clock.now() - startedAt).toBe(options.intervalMs);
  });

  it('reports when its last tick listed the checks, for the last look after it stops', async () => {
    const { connector } = emptyMailboxes();
    const checks = scriptedChecks([[{ checkId: 'c1', pending: ['a@mail.test'] }], [], []]);
    const clock = new ManualClock();
    const startedAt = clock.now();
    const report = await runScanLoop(
      { scanner: scannerOver(checks, connector), lease: new MemoryLease(), clock, log },
      { ...options, deadline: startedAt + 60_000, idleGraceMs: 60_000, lingerMs: options.intervalMs },
    );
    expect(report).toMatchObject({ stoppedBecause: 'idle', ticks: 3 });
    // Three ticks an interval apart: the last began two intervals after the first.
    expect(report.lastTickAt).toBe(startedAt + 2 * options.intervalMs);
  });

  it('without work, keeps the idle grace: a new check may not be in the index yet', async () => {
    const { connector } = emptyMailboxes();
    const checks = scriptedChecks([[], [], [{ checkId: 'c1', pending: ['a@mail.test'] }], []]);
    const scanner = scannerOver(checks, connector);
    const clock = new ManualClock();
    const report = await runScanLoop(
      { scanner, lease: new MemoryLease(), clock, log },
      { ...options, deadline: clock.now() + 60_000, idleGraceMs: 60_000, lingerMs: 0 },
    );
    expect(report).toMatchObject({ stoppedBecause: 'idle', ticks: 4 });
  });

  it('waits for a lease held by a loop that is ending, when asked to', async () => {
    const lease = new MemoryLease();
    await lease.acquire('other', Date.now(), 60_000);
    const { connector } = emptyMailboxes();
    const scanner = scannerOver(scriptedChecks([[]]), connector);
    const deps = { scanner, lease, clock: systemClock, log };
    expect(await runScanLoop(deps, options)).toMatchObject({ ran: false, stoppedBecause: 'not-acquired' });
    setTimeout(() => void lease.release('other'), 30);
    expect(await runScanLoop(deps, { ...options, acquireWaitMs: 10_000 })).toMatchObject({
      ran: true,
      stoppedBecause: 'idle',
    });
  });

  it('after waiting for another loop to end, keeps only a linger of grace: that loop swept after the wake-up', async () => {
    const lease = new MemoryLease();
    await lease.acquire('other', Date.now(), 60_000);
    const { connector } = emptyMailboxes();
    const scanner = scannerOver(scriptedChecks([[]]), connector);
    setTimeout(() => void lease.release('other'), 30);
    const startedAt = Date.now();
    const report = await runScanLoop(
      { scanner, lease, clock: systemClock, log },
      { ...options, acquireWaitMs: 10_000, idleGraceMs: 60_000, lingerMs: 0 },
    );
    expect(report).toMatchObject({ ran: true, stoppedBecause: 'idle', ticks: 1 });
    expect(Date.now() - startedAt).toBeLessThan(30_000);
  });

  it("clears failures a past loop left on record, in each new loop's first sweep", async () => {
    const cleared: string[] = [];
    const scanner = new Scanner({
      checks: scriptedChecks([[{ checkId: 'c1', pending: ['a@mail.test'] }]]),
      cursors: new MemoryCursors(),
      credentials: { get: async (email) => credentialsOf(email) },
      health: {
        recordFailure: async () => false,
        recordSuccess: async (email) => cleared.push(email) > 0,
        listFailing: async () => [{ email: 'a@mail.test', unhealthy: false }],
      },
      connector: emptyMailboxes().connector,
      clock: systemClock,
      log,
    });
    for (const loop of [1, 2]) {
      await scanner.sweepOnce();
      await scanner.sweepOnce();
      await scanner.close();
      expect(cleared).toHaveLength(loop);
    }
  });

  it('a shard sweeps only its own accounts, and all shards together sweep each account once', async () => {
    const accounts = Array.from({ length: 40 }, (_, index) => `user${index}@mail.test`);
    const swept: string[] = [];
    for (const index of [0, 1, 2]) {
      const { connector, opened } = emptyMailboxes();
      const scanner = scannerOver(scriptedChecks([[{ checkId: 'c1', pending: accounts }]]), connector, {
        shard: { index, count: 3 },
      });
      await scanner.sweepOnce();
      await scanner.close();
      expect(opened.length).toBeGreaterThan(0);
      expect(opened.every((email) => inShard(email, { index, count: 3 }))).toBe(true);
      swept.push(...opened);
    }
    expect(swept.sort()).toEqual([...accounts].sort());
  });

  it('renews its lease only once less than half its TTL is left, not every tick', async () => {
    const lease = new MemoryLease();
    const writes: number[] = [];
    const acquire = lease.acquire.bind(lease);
    lease.acquire = async (owner, now, ttlMs) => {
      writes.push(now);
      return acquire(owner, now, ttlMs);
    };
    const { connector } = emptyMailboxes();
    const scanner = scannerOver(scriptedChecks([[{ checkId: 'c1', pending: ['a@mail.test'] }]]), connector);
    const clock = new ManualClock();
    const startedAt = clock.now();
    const report = await runScanLoop(
      { scanner, lease, clock, log },
      { owner: 'me', intervalMs: 1000, leaseTtlMs: 5000, idleGraceMs: 0, deadline: startedAt + 60_500 },
    );
    expect(report).toMatchObject({ stoppedBecause: 'deadline', ticks: 60 });
    // Taken at 0 s, then renewed at 3, 6, 9 s... (2 s of the 5 s left): 21 writes in 60 ticks where it was 61.
    expect(writes.map((at) => at - startedAt)).toEqual(Array.from({ length: 21 }, (_, n) => n * 3000));
  });

  it('never lets two loops hold the lease at once: the second takes it only after the first stops renewing', async () => {
    const lease = new MemoryLease();
    const clock = new ManualClock();
    const holders: { at: number; owner: string }[] = [];
    const loop = (owner: string, deadline: number, acquireWaitMs = 0) => {
      const checks = scriptedChecks([[{ checkId: 'c1', pending: ['a@mail.test'] }]]);
      const scanner = scannerOver(checks, emptyMailboxes().connector);
      const tick = scanner.tick.bind(scanner);
      scanner.tick = async () => {
        holders.push({ at: clock.now(), owner });
        // The lease, as the store holds it, is this loop's whenever it sweeps.
        expect(lease.holder?.owner).toBe(owner);
        expect(lease.holder?.until ?? 0).toBeGreaterThan(clock.now());
        return tick();
      };
      return runScanLoop(
        { scanner, lease, clock, log },
        { owner, intervalMs: 1000, leaseTtlMs: 5000, idleGraceMs: 0, deadline, acquireWaitMs },
      );
    };
    const first = loop('first', clock.now() + 20_500);
    const second = loop('second', clock.now() + 40_500, 40_000);
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ ran: true, stoppedBecause: 'deadline' });
    expect(b).toMatchObject({ ran: true });
    const lastOfFirst = Math.max(...holders.filter((h) => h.owner === 'first').map((h) => h.at));
    const firstOfSecond = Math.min(...holders.filter((h) => h.owner === 'second').map((h) => h.at));
    expect(firstOfSecond).toBeGreaterThan(lastOfFirst);
  });
});
