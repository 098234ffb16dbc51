// Lambda woken every minute by EventBridge, by the table's stream when a check starts (it only starts the loops
// nobody runs), or by itself to hand over or to run a further shard: sweeps its share of the test mailboxes until
// shortly before its deadline.
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { composeScanLambda, handOverNext } from '../shared/composition/scanLambda';
import { loadScanConfig } from '../shared/config';
import { systemClock } from '../shared/domain/clock';
import { lambdaContext } from '../shared/log';
import {
  chainOf,
  chainRefusal,
  isStreamWakeUp,
  reservationOf,
  shardOfEvent,
  wakeOf,
} from '../shared/scanner/invocation';
import { isDeployProbe } from '../shared/scanner/probe';
import { DEADLINE_MARGIN_MS, runScanLoop } from '../shared/scanner/scanLoop';

const scan = composeScanLambda(loadScanConfig());

export const handler = middy(async (event: unknown, context: Context) => {
  // A new version's post-deploy check (the deploy probe hook): one account swept, no loop, nothing recorded.
  if (isDeployProbe(event)) return scan.probe(`probe-${context.awsRequestId}`);
  if (isStreamWakeUp(event)) {
    // New checks: start the loops nobody runs and return; a running loop lists the checks again at its next tick.
    const kicked = await scan.wakeUp(context.awsRequestId);
    scan.log.info('scanner woken by new checks', { ...kicked });
    // A failed start gave its reservation back: the stream retries the batch (then its dead-letter queue).
    if (kicked.failed > 0) throw new Error('could not start a scanner loop for new checks');
    return kicked;
  }
  const wake = wakeOf(event);
  // A hand-over carries its chain's hop count and start: one past its bound is refused, not run.
  const chain = chainOf(event, Date.now());
  const refused = chainRefusal(chain, Date.now());
  if (refused) return scan.log.warn('scanner event refused', { reason: refused });
  let shard = shardOfEvent(event);
  if (!shard) {
    // The schedule: this invocation takes shard 0 and starts one invocation per further shard.
    const count = await scan.publishShards();
    await Promise.all(
      Array.from({ length: count - 1 }, (_, index) =>
        scan.invoker.startShard({ index: index + 1, count }, wake),
      ),
    );
    shard = { index: 0, count };
  }
  const { scanner, lease } = scan.scannerFor(shard);
  const report = await runScanLoop(
    { scanner, lease, clock: systemClock, log: scan.log },
    {
      ...scan.timing,
      owner: `${context.awsRequestId}-${randomUUID()}`,
      deadline: Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS,
      idleGraceMs: wake === 'schedule' ? 0 : scan.timing.idleGraceMs,
      // A loop the wake-up started takes over the lease it reserved; any other finding the lease held gives up at
      // once, since the loop holding it does the same work.
      acquireWaitMs: 0,
      reservedBy: reservationOf(event),
    },
    undefined,
    () => scan.metrics.flush(),
  );
  // Inside the deadline's margin: the loop has stopped, the audits it started get what time is left.
  await scan.auditsSettled(context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS / 2);
  scan.metrics.flush();
  // A check started while this loop closed saw its lease still held and started nothing: one last look for it.
  if (report.stoppedBecause === 'idle' && report.lastTickAt !== undefined) {
    await scan.wakeUpMissed(shard, report.lastTickAt, context.awsRequestId);
  }
  // Checks are still active but this invocation is out of time: a fresh one continues without waiting a minute.
  if (report.stoppedBecause === 'deadline') await handOverNext(scan, shard, chain, Date.now());
  scan.log.info('scan loop ended', { wake, shard, ...report });
  return report;
})
  .use(lambdaContext(scan.log))
  .use(scan.tracing);
