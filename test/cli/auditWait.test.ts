// The check CLI's short wait for a sender audit still pending when the check settled, on an injected clock: it
// reads the report again until the audit is ready or the wait is over, bounded in reads even if the clock stands.
import { describe, expect, it } from 'vitest';
import { awaitAudit } from '../../shared/cli/placement/auditWait';
import type { PlacementReport } from '../../shared/client';
import type { ReportAudit } from '../../shared/domain/auditReport';
import { withSnakeKeys } from '../../shared/domain/wireKeys';
import { sampleReport } from '../support/placementReport';
import { readyAudit } from '../support/reportAudits';

const reportWith = (audit: ReportAudit): PlacementReport => ({
  ...sampleReport(),
  audit: withSnakeKeys(audit),
});
const PENDING = { state: 'pending' } as const;

/** A clock that moves only when slept on, and a service answering the given audits in turn. */
const rig = (answers: (ReportAudit | undefined)[], { clockStands = false } = {}) => {
  let now = 0;
  const slept: number[] = [];
  let reads = 0;
  return {
    wait: {
      waitMs: 6000,
      intervalMs: 500,
      now: () => now,
      sleep: async (ms: number) => {
        slept.push(ms);
        if (!clockStands) now += ms;
      },
    },
    read: async () => {
      const answer = answers[Math.min(reads++, answers.length - 1)];
      return answer === undefined ? undefined : reportWith(answer);
    },
    slept,
    reads: () => reads,
  };
};

describe('waiting for a pending audit', () => {
  it('reads again every interval until the audit is ready', async () => {
    const ready = await readyAudit();
    const { wait, read, slept, reads } = rig([PENDING, PENDING, ready]);
    const report = await awaitAudit(reportWith(PENDING), read, wait);
    expect(report.audit).toEqual(withSnakeKeys(ready));
    expect(reads()).toBe(3);
    expect(slept).toEqual([500, 500, 500]);
  });

  it('does not read again when the audit is not pending', async () => {
    const { wait, read, reads } = rig([PENDING]);
    const unavailable = reportWith({ state: 'unavailable', why: 'off' });
    expect(await awaitAudit(unavailable, read, wait)).toBe(unavailable);
    expect(reads()).toBe(0);
  });

  it('gives up at the end of the wait and shows it pending', async () => {
    const { wait, read, slept, reads } = rig([PENDING]);
    const report = await awaitAudit(reportWith(PENDING), read, wait);
    expect(report.audit).toEqual(PENDING);
    expect(slept.reduce((sum, ms) => sum + ms, 0)).toBe(6000);
    expect(reads()).toBe(12);
  });

  it('stays bounded in reads when the clock does not move', async () => {
    const { wait, read, reads } = rig([PENDING], { clockStands: true });
    await awaitAudit(reportWith(PENDING), read, wait);
    expect(reads()).toBe(12);
  });

  it('keeps the report it has when a read fails', async () => {
    const { wait, read, reads } = rig([undefined]);
    const first = reportWith(PENDING);
    expect(await awaitAudit(first, read, wait)).toBe(first);
    expect(reads()).toBe(1);
  });
});
