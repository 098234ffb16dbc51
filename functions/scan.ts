// Lambda woken every minute by EventBridge, at once by the table's stream when a check starts, or by itself to
// hand over or to run a further shard: sweeps its share of the test mailboxes until shortly before its deadline.
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { composeScanLambda } from '../shared/composition/scanLambda';
import { loadScanConfig } from '../shared/config';
import { systemClock } from '../shared/domain/clock';
import { shardOfEvent, wakeOf } from '../shared/scanner/invocation';
import { DEADLINE_MARGIN_MS, runScanLoop } from '../shared/scanner/scanLoop';

const scan = composeScanLambda(loadScanConfig());

export const handler = middy(async (event: unknown, context: Context) => {
  const wake = wakeOf(event);
  let shard = shardOfEvent(event);
  if (!shard) {
    // The schedule or the stream: this invocation takes shard 0 and starts one invocation per further shard.
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
      // Only a new check's kick waits for a lease (it may land while a loop is just ending); the rest give up at once.
      acquireWaitMs: wake === 'new-check' ? scan.timing.acquireWaitMs : 0,
    },
    undefined,
    () => scan.metrics.flush(),
  );
  scan.metrics.flush();
  // Checks are still active but this invocation is out of time: a fresh one continues without waiting a minute.
  if (report.stoppedBecause === 'deadline') await scan.invoker.handOver(shard);
  scan.log.info('scan loop ended', { wake, shard, ...report });
  return report;
});
