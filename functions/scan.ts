// Lambda woken every minute by EventBridge, at once by the table's stream when a check starts, or by itself to
// hand over or to run a further shard: sweeps its share of the test mailboxes until shortly before its deadline.
import { randomUUID } from 'node:crypto';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { AccountEntriesCredentialSource } from '../shared/adapters/credentials/AccountEntriesCredentialSource';
import { SecretAccountEntries } from '../shared/adapters/credentials/accountEntries';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DynamoShardLayout } from '../shared/adapters/dynamo/DynamoShardLayout';
import { OAuthTokens } from '../shared/adapters/oauth/OAuthTokens';
import { refreshTokenPersister } from '../shared/adapters/oauth/refreshTokenPersister';
import { ScannerInvoker } from '../shared/adapters/ScannerInvoker';
import { createMetrics, scanMetrics } from '../shared/adapters/telemetry/powertools';
import { createScanner } from '../shared/composition/scanner';
import { loadScanConfig } from '../shared/config';
import { systemClock } from '../shared/domain/clock';
import { createLambdaLogger } from '../shared/log';
import { shardOfEvent, wakeOf } from '../shared/scanner/scanEvent';
import { DEADLINE_MARGIN_MS, runScanLoop } from '../shared/scanner/scanLoop';
import { type Shard, shardCountFor } from '../shared/scanner/shards';
import { SERVICES } from '../shared/telemetry/metrics';

const config = loadScanConfig();
const log = createLambdaLogger(SERVICES.scan, config.LOG_LEVEL);
const metrics = scanMetrics(createMetrics(SERVICES.scan));
const client = createDocumentClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT });
const entries = new SecretAccountEntries(
  new SecretsManagerClient({ region: config.AWS_REGION }),
  config.CREDENTIALS_SECRET_ID,
);
const credentials = new AccountEntriesCredentialSource(entries, systemClock);
// Rotated refresh tokens are written back to the same secret.
const tokens = new OAuthTokens({
  clock: systemClock,
  log,
  ...refreshTokenPersister(entries),
  onConsentRequired: metrics.consentRequired,
});
const layout = new DynamoShardLayout(client, config.TABLE_NAME);
const scanners = new Map<string, ReturnType<typeof createScanner>>();
/** One scanner (and its IMAP connections) per shard this container has run, kept for the next invocation. */
const scannerFor = (shard: Shard) => {
  const key = `${shard.index}/${shard.count}`;
  let built = scanners.get(key);
  if (!built) {
    built = createScanner({
      client,
      tableName: config.TABLE_NAME,
      credentials,
      clock: systemClock,
      log,
      events: metrics,
      tokens,
      unhealthyAfter: config.UNHEALTHY_AFTER_FAILURES,
      tabGraceMs: config.GMAIL_TAB_GRACE_MS,
      shard,
    });
    scanners.set(key, built);
  }
  return built;
};
const invoker = new ScannerInvoker(
  new LambdaClient({ region: config.AWS_REGION }),
  config.AWS_LAMBDA_FUNCTION_NAME,
  log,
);

/** After a new check, wait this long for it to show in the (eventually consistent) index before giving up. */
const NEW_CHECK_IDLE_GRACE_MS = 10_000;

export const handler = middy(async (event: unknown, context: Context) => {
  const wake = wakeOf(event);
  let shard = shardOfEvent(event);
  if (!shard) {
    // The schedule or the stream: this invocation takes shard 0 and starts one invocation per further shard.
    // Counted from the secret every invocation reads anyway (cached a minute), not from a scan of the table.
    const count = shardCountFor(await credentials.count(), config.SCAN_SHARD_SIZE);
    // Starting a check files it under each shard it touches, as this layout says (DynamoCheckStore.create).
    await layout.publish(count, systemClock.now());
    await Promise.all(
      Array.from({ length: count - 1 }, (_, index) => invoker.startShard({ index: index + 1, count }, wake)),
    );
    shard = { index: 0, count };
  }
  const { scanner, lease } = scannerFor(shard);
  const report = await runScanLoop(
    { scanner, lease, clock: systemClock, log },
    {
      owner: `${context.awsRequestId}-${randomUUID()}`,
      intervalMs: config.SCAN_INTERVAL_MS,
      deadline: Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS,
      leaseTtlMs: config.SCAN_INTERVAL_MS * 5 + DEADLINE_MARGIN_MS,
      idleGraceMs: wake === 'schedule' ? 0 : NEW_CHECK_IDLE_GRACE_MS,
      // Billed by the millisecond: stop soon after the last pending account of this shard is done.
      lingerMs: config.SCAN_INTERVAL_MS,
      // A new check's kick may land while a loop is just ending; wait for its lease rather than for the schedule.
      acquireWaitMs: wake === 'new-check' ? config.SCAN_INTERVAL_MS * 5 : 0,
    },
    undefined,
    () => metrics.flush(),
  );
  metrics.flush();
  // Checks are still active but this invocation is out of time: a fresh one continues without waiting a minute.
  if (report.stoppedBecause === 'deadline') await invoker.handOver(shard);
  log.info('scan loop ended', { wake, shard, ...report });
  return report;
});
