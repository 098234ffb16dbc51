// Lambda run every minute by EventBridge and kicked by start: sweeps the test mailboxes until shortly before its deadline.
import { randomUUID } from 'node:crypto';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { SecretsManagerCredentialSource } from '../shared/adapters/credentials/SecretsManagerCredentialSource';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { loadScanConfig } from '../shared/config';
import { systemClock } from '../shared/domain/clock';
import { createLogger } from '../shared/log';
import { createScanner } from '../shared/runtime/scanner';
import { runScanLoop } from '../shared/scanner/scanLoop';

const config = loadScanConfig();
const log = createLogger('scan', config.LOG_LEVEL);
const client = createDocumentClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT });
const credentials = new SecretsManagerCredentialSource(
  new SecretsManagerClient({ region: config.AWS_REGION }),
  config.CREDENTIALS_SECRET_ID,
  systemClock,
);
const { scanner, lease } = createScanner({
  client,
  tableName: config.TABLE_NAME,
  credentials,
  clock: systemClock,
  log,
});

/** Stop this long before the Lambda deadline: a sweep in flight and the logout must fit in it. */
const DEADLINE_MARGIN_MS = 20_000;
/** After a kick from start, wait this long for the new check to show in the (eventually consistent) index. */
const KICK_IDLE_GRACE_MS = 10_000;

export const handler = middy(async (event: { kick?: boolean } | undefined, context: Context) => {
  const report = await runScanLoop(
    { scanner, lease, clock: systemClock, log },
    {
      owner: `${context.awsRequestId}-${randomUUID()}`,
      intervalMs: config.SCAN_INTERVAL_MS,
      deadline: Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS,
      leaseTtlMs: config.SCAN_INTERVAL_MS * 5 + DEADLINE_MARGIN_MS,
      idleGraceMs: event?.kick === true ? KICK_IDLE_GRACE_MS : 0,
    },
  );
  log.info('scan loop ended', { ...report });
  return report;
});
