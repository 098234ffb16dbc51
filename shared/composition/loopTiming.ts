// Owns the scanner loop's timing, one definition for the Lambda and npm start: lease, waits and graces from one interval.
import type { ScanLoopOptions } from '../scanner/scanLoop';

/** After a new check, wait this long for it to show in the (eventually consistent) index before giving up. */
const NEW_CHECK_IDLE_GRACE_MS = 10_000;

/** The lease outlives this many intervals: renewed at half of it, it survives a slow renewal or two. */
const LEASE_INTERVALS = 5;

export type LoopTiming = Required<
  Pick<ScanLoopOptions, 'intervalMs' | 'leaseTtlMs' | 'idleGraceMs' | 'lingerMs' | 'acquireWaitMs'>
>;

/**
 * `deadlineMarginMs`: how long a loop may still hold IMAP sessions after its deadline (the Lambda's
 * DEADLINE_MARGIN_MS), which the lease must cover; npm start's loops have no deadline, so 0.
 */
export const loopTiming = (intervalMs: number, deadlineMarginMs: number): LoopTiming => {
  const leaseTtlMs = intervalMs * LEASE_INTERVALS + deadlineMarginMs;
  return {
    intervalMs,
    leaseTtlMs,
    idleGraceMs: NEW_CHECK_IDLE_GRACE_MS,
    // Billed by the millisecond on Lambda: stop soon after the last pending account of the shard is done.
    lingerMs: intervalMs,
    // A lease left by a loop that is ending, or by a killed process, expires within its TTL: wait that long and one
    // interval more for it (the loop gives up an interval early), not for the schedule.
    acquireWaitMs: leaseTtlMs + intervalMs,
  };
};
