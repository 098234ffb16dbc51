// The scanner loop when its store fails (DynamoDB unreachable after the SDK's own retries): a failing tick or lease
// renewal is tried again next interval, so mail is read as soon as the store is back; a failure that outlasts the
// grace still ends the loop with its error; a failed lease release never hides how the loop ended.
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../shared/domain/clock';
import { createLogger } from '../../shared/log';
import { Scanner } from '../../shared/scanner/Scanner';
import { runScanLoop } from '../../shared/scanner/scanLoop';
import type { Lease, MailboxConnector, PendingAccounts } from '../../shared/scanner/scannerPorts';
import { credentialsOf, emptyMailboxes, fastLoopOptions, MemoryCursors } from '../support/scannerFakes';

const unreachable = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });

/** A lease whose calls fail while `down` says so, as DynamoDB's would. */
class FlakyLease implements Lease {
  holder: string | undefined;
  renewals = 0;
  constructor(private readonly down: (call: 'acquire' | 'release') => boolean = () => false) {}
  async acquire(owner: string) {
    if (this.holder) this.renewals++;
    if (this.down('acquire')) throw unreachable();
    this.holder = owner;
    return true;
  }
  async release(owner: string) {
    if (this.down('release')) throw unreachable();
    if (this.holder === owner) this.holder = undefined;
  }
}

/** listActive answers from the script, one entry per call (the last repeating); `'down'` throws. */
const scriptedStore = (script: (PendingAccounts[] | 'down')[]) => {
  let call = 0;
  return {
    listActive: async () => {
      const answer = script[Math.min(call++, script.length - 1)];
      if (answer === 'down' || answer === undefined) throw unreachable();
      return answer;
    },
    settle: async () => [],
    recordResult: async () => 'recorded' as const,
  };
};

const scannerOver = (checks: ReturnType<typeof scriptedStore>, connector: MailboxConnector) =>
  new Scanner({
    checks,
    cursors: new MemoryCursors(),
    credentials: { get: async (email) => credentialsOf(email) },
    connector,
    clock: systemClock,
    log: createLogger('test', 'error'),
  });

const options = fastLoopOptions();
/** A lease of two intervals is renewed after every tick (see renewalDue): for the tests of a failing renewal. */
const renewEveryTick = { ...options, leaseTtlMs: options.intervalMs * 2 };
const pending: PendingAccounts[] = [{ checkId: 'c1', pending: ['a@mail.test'] }];

const capture = () => {
  const lines: { level: string; message: string }[] = [];
  return { lines, log: createLogger('test', 'debug', (line) => lines.push(JSON.parse(line))) };
};

describe('the scanner loop when its store fails', () => {
  it('keeps ticking through failed ticks and sweeps once the store answers again', async () => {
    const { connector, opened } = emptyMailboxes();
    const scanner = scannerOver(scriptedStore(['down', 'down', 'down', pending, []]), connector);
    const lease = new FlakyLease();
    const { lines, log } = capture();
    const report = await runScanLoop({ scanner, lease, clock: systemClock, log }, options);
    expect(report).toMatchObject({ ran: true, ticks: 5, stoppedBecause: 'idle' });
    expect(opened).toEqual(['a@mail.test']);
    expect(lines.filter((line) => line.message.startsWith('scanner tick failed'))).toHaveLength(3);
    expect(lease.holder).toBeUndefined();
  });

  it('a failed tick does not count as idle: the loop waits out the failure instead of ending', async () => {
    const { connector } = emptyMailboxes();
    // Without work and with no idle grace, one successful empty tick ends the loop; failures must not.
    const scanner = scannerOver(scriptedStore(['down', 'down', []]), connector);
    const report = await runScanLoop(
      { scanner, lease: new FlakyLease(), clock: systemClock, log: createLogger('test', 'error') },
      options,
    );
    expect(report).toMatchObject({ ticks: 3, stoppedBecause: 'idle' });
  });

  it('carries on when a lease renewal fails, and is not undone by a release that fails', async () => {
    const { connector, opened } = emptyMailboxes();
    const scanner = scannerOver(scriptedStore([pending, pending, []]), connector);
    let acquires = 0;
    const lease = new FlakyLease((call) => (call === 'acquire' ? acquires++ === 1 : true));
    const { lines, log } = capture();
    const report = await runScanLoop({ scanner, lease, clock: systemClock, log }, renewEveryTick);
    expect(report).toMatchObject({ ran: true, ticks: 3, stoppedBecause: 'idle' });
    expect(opened).toEqual(['a@mail.test']);
    expect(lines.map((line) => line.message)).toEqual(
      expect.arrayContaining([
        'scanner lease renewal failed; trying again next interval',
        'scanner lease not released',
      ]),
    );
  });

  it('ends with the store error once failures outlast the grace, releasing the lease', async () => {
    const { connector, opened } = emptyMailboxes();
    const scanner = scannerOver(scriptedStore(['down']), connector);
    const lease = new FlakyLease();
    const startedAt = Date.now();
    await expect(
      runScanLoop(
        { scanner, lease, clock: systemClock, log: createLogger('test', 'error') },
        { ...renewEveryTick, storeFailureGraceMs: 100 },
      ),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(100);
    expect(lease.renewals).toBeGreaterThan(0);
    expect(lease.holder).toBeUndefined();
    expect(opened).toEqual([]);
  });
});
