// Owns one scheduled or self-started scan invocation: which shard it takes (the schedule fans the further shards
// out), running the loop until shortly before the deadline, and what it leaves for the next invocation.
import { randomUUID } from 'node:crypto';
import { systemClock } from '../domain/clock';
import { chainOf, chainRefusal, reservationOf, shardOfEvent, wakeOf } from '../scanner/invocation';
import { DEADLINE_MARGIN_MS, runScanLoop } from '../scanner/scanLoop';
import { handOverNext, type ScanLambda } from './scanLambda';

/** What the invocation knows of its Lambda: its request id and how long it has left. */
export interface InvocationClock {
  requestId: string;
  remainingMs: () => number;
}

/** The event's shard, or, for the schedule, shard 0 of the published count with one invocation per further shard. */
const shardToRun = async (scan: ScanLambda, event: unknown) => {
  const shard = shardOfEvent(event);
  if (shard) return shard;
  const count = await scan.publishShards();
  const wake = wakeOf(event);
  await Promise.all(
    Array.from({ length: count - 1 }, (_, index) =>
      scan.invoker.startShard({ index: index + 1, count }, wake),
    ),
  );
  return { index: 0, count };
};

export const runScanInvocation = async (scan: ScanLambda, event: unknown, lambda: InvocationClock) => {
  const wake = wakeOf(event);
  // A hand-over carries its chain's hop count and start: one past its bound is refused, not run.
  const chain = chainOf(event, Date.now());
  const refused = chainRefusal(chain, Date.now());
  if (refused) return scan.log.warn('scanner event refused', { reason: refused });
  const shard = await shardToRun(scan, event);
  const { scanner, lease } = scan.scannerFor(shard);
  // The audits the loop started read their copies over this scanner's sessions: they get what time the deadline's
  // margin allows before close() ends those sessions, or a copy whose audit starts only then reads headers alone.
  const closing: Pick<typeof scanner, 'tick' | 'close'> = {
    tick: () => scanner.tick(),
    close: async (...args) => {
      await scan.auditsSettled(lambda.remainingMs() - DEADLINE_MARGIN_MS / 2);
      return scanner.close(...args);
    },
  };
  const report = await runScanLoop(
    { scanner: closing, lease, clock: systemClock, log: scan.log },
    {
      ...scan.timing,
      owner: `${lambda.requestId}-${randomUUID()}`,
      deadline: Date.now() + lambda.remainingMs() - DEADLINE_MARGIN_MS,
      idleGraceMs: wake === 'schedule' ? 0 : scan.timing.idleGraceMs,
      // A loop the wake-up started takes over the lease it reserved; any other finding the lease held gives up at
      // once, since the loop holding it does the same work.
      acquireWaitMs: 0,
      reservedBy: reservationOf(event),
    },
    undefined,
    () => scan.metrics.flush(),
  );
  // Audits still waiting for a slot when the sessions closed: what time is left (they read what they can).
  await scan.auditsSettled(lambda.remainingMs() - DEADLINE_MARGIN_MS / 2);
  scan.metrics.flush();
  // A check started while this loop closed saw its lease still held and started nothing: one last look for it.
  if (report.stoppedBecause === 'idle' && report.lastTickAt !== undefined) {
    await scan.wakeUpMissed(shard, report.lastTickAt, lambda.requestId);
  }
  // Checks are still active but this invocation is out of time: a fresh one continues without waiting a minute.
  if (report.stoppedBecause === 'deadline') await handOverNext(scan, shard, chain, Date.now());
  scan.log.info('scan loop ended', { wake, shard, ...report });
  return report;
};
