// Lambda woken every minute by EventBridge, by the table's stream when a check starts (it only starts the loops
// nobody runs), or by itself to hand over or to run a further shard: sweeps its share of the test mailboxes until
// shortly before its deadline.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { runScanInvocation } from '../shared/composition/scanInvocation';
import { composeScanLambda } from '../shared/composition/scanLambda';
import { loadScanConfig } from '../shared/config';
import { lambdaContext } from '../shared/log';
import { isStreamWakeUp } from '../shared/scanner/invocation';
import { isDeployProbe } from '../shared/scanner/probe';

const scan = composeScanLambda(loadScanConfig());

export const handler = middy(async (event: unknown, context: Context) => {
  // A new version's pre-traffic check (the deploy probe hook): one account swept end to end, nothing recorded live.
  if (isDeployProbe(event)) return scan.probe(`probe-${context.awsRequestId}`);
  if (isStreamWakeUp(event)) {
    // New checks: start the loops nobody runs and return; a running loop lists the checks again at its next tick.
    const kicked = await scan.wakeUp(context.awsRequestId);
    scan.log.info('scanner woken by new checks', { ...kicked });
    // A failed start gave its reservation back: the stream retries the batch (then its dead-letter queue).
    if (kicked.failed > 0) throw new Error('could not start a scanner loop for new checks');
    return kicked;
  }
  // The schedule, a hand-over or a further shard: one loop until shortly before the deadline.
  return runScanInvocation(scan, event, {
    requestId: context.awsRequestId,
    remainingMs: () => context.getRemainingTimeInMillis(),
  });
})
  .use(lambdaContext(scan.log))
  .use(scan.tracing);
