// On Lambda the audits a scan loop started read their copies over the scanner's held sessions: the invocation lets
// them finish, within the deadline's margin, before the loop's close() ends those sessions (issue 42, item 6).
import { describe, expect, it } from 'vitest';
import { type InvocationClock, runScanInvocation } from '../../shared/composition/scanInvocation';
import { createLogger } from '../../shared/log';
import { DEADLINE_MARGIN_MS } from '../../shared/scanner/scanLoop';

type ScanLambda = Parameters<typeof runScanInvocation>[0];

/** A scan Lambda whose one tick starts an audit that reads its copy over the session 30 ms later. */
const scanLambda = () => {
  const events: string[] = [];
  let sessionOpen = true;
  let audit: Promise<void> | undefined;
  const scanner = {
    tick: async () => {
      audit = new Promise<void>((resolve) =>
        setTimeout(() => {
          events.push(
            sessionOpen ? 'audit read the copy over the session' : 'audit found the session closed',
          );
          resolve();
        }, 30),
      );
      return { activeChecks: 0, pendingAccounts: 0, heldAccounts: 0, started: [] };
    },
    close: async () => {
      sessionOpen = false;
      events.push('sessions closed');
    },
  };
  const scan = {
    scannerFor: () => ({
      scanner,
      lease: { acquire: async () => true, release: async () => undefined },
    }),
    timing: { intervalMs: 1000, leaseTtlMs: 5000, idleGraceMs: 0, lingerMs: 0 },
    log: createLogger('test', 'error', () => undefined),
    metrics: { flush: () => undefined },
    auditsSettled: async (graceMs: number) => {
      events.push(`audits awaited for at most ${graceMs} ms`);
      await audit;
    },
    wakeUpMissed: async () => undefined,
    invoker: { handOver: async () => undefined },
  };
  return { scan: scan as unknown as ScanLambda, events };
};

describe('a scan invocation closing its loop', () => {
  it('awaits the audits it started before closing the sessions they read over, within the margin', async () => {
    const { scan, events } = scanLambda();
    const remainingMs = 60_000;
    const lambda: InvocationClock = { requestId: 'r1', remainingMs: () => remainingMs };
    const report = await runScanInvocation(scan, { shard: { index: 0, count: 1 } }, lambda);
    expect(report?.stoppedBecause).toBe('idle');
    expect(events.slice(0, 3)).toEqual([
      `audits awaited for at most ${remainingMs - DEADLINE_MARGIN_MS / 2} ms`,
      'audit read the copy over the session',
      'sessions closed',
    ]);
  });
});
