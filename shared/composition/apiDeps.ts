// Owns the production wiring of the API functions: config read once, one DynamoDB client per process.

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../adapters/dynamo/client';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../adapters/dynamo/DynamoApiKeyStore';
import { DynamoAuditStore } from '../adapters/dynamo/DynamoAuditStore';
import { DynamoCheckStore } from '../adapters/dynamo/DynamoCheckStore';
import { DynamoKeyUsage } from '../adapters/dynamo/DynamoKeyUsage';
import { DynamoReportArchive } from '../adapters/dynamo/DynamoReportArchive';
import { DynamoSeedHistory } from '../adapters/dynamo/DynamoSeedHistory';
import { DynamoShardLayout } from '../adapters/dynamo/DynamoShardLayout';
import { DynamoWebhookStore } from '../adapters/dynamo/DynamoWebhookStore';
import { createMetrics, emitNow } from '../adapters/telemetry/powertools';
import { traced, tracing } from '../adapters/telemetry/tracing';
import { type ApiConfig, loadApiConfig } from '../config';
import { AuthCache } from '../domain/authCache';
import { systemClock } from '../domain/clock';
import { ReadLimiter } from '../domain/readLimits';
import type { ApiDeps } from '../http/deps';
import { createLambdaLogger, createLogger } from '../log';
import { SERVICES } from '../telemetry/metrics';

export type { ApiDeps };

let memo: ApiDeps | undefined;
let memoClient: DynamoDBDocumentClient | undefined;

/** The API's one DynamoDB client per process; `npm start` in benchmark mode counts what goes through it. */
const apiDocumentClient = (): DynamoDBDocumentClient => {
  if (memoClient) return memoClient;
  const config = loadApiConfig();
  memoClient = traced(
    createDocumentClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT }),
  );
  return memoClient;
};

/** Built on first use and then shared by every handler in the process. */
export const apiDeps = (): ApiDeps => {
  memo ??= buildApiDeps(loadApiConfig(), apiDocumentClient());
  return memo;
};

/** The API functions' outermost middleware: the X-Ray segment of each invocation, where the deploy turned it on. */
export const apiTracing = () => tracing(SERVICES.api, loadApiConfig().POWERTOOLS_TRACE_ENABLED === 'true');

/** The API's dependencies from its settings and its DynamoDB client: Lambda's wiring above, and npm start's. */
export const buildApiDeps = (config: ApiConfig, client: DynamoDBDocumentClient): ApiDeps => {
  // On Lambda: Powertools logs and EMF metrics. Elsewhere (npm start, tests): plain JSON lines and no metrics.
  const onLambda = config.AWS_LAMBDA_FUNCTION_NAME !== undefined;
  const log = onLambda
    ? createLambdaLogger(SERVICES.api, config.LOG_LEVEL)
    : createLogger('api', config.LOG_LEVEL);
  const metrics = onLambda ? createMetrics(SERVICES.api, config.POWERTOOLS_METRICS_NAMESPACE) : undefined;
  return {
    keys: new DynamoApiKeyStore(client, config.TABLE_NAME),
    checks: new DynamoCheckStore(client, config.TABLE_NAME, new DynamoShardLayout(client, config.TABLE_NAME)),
    accounts: new DynamoAccountRegistry(client, config.TABLE_NAME),
    // The report's webhook attempts (an addition); the get function may read delivery items only.
    webhooks: new DynamoWebhookStore(client, config.TABLE_NAME),
    seeds: new DynamoSeedHistory(client, config.TABLE_NAME),
    // The report's sender audit (an addition): an item beside the check, which get may already read.
    audits: new DynamoAuditStore(client, config.TABLE_NAME),
    // Ended checks' reports (an addition): what history lists and compare reads past the 10 minutes.
    archive: new DynamoReportArchive(client, config.TABLE_NAME),
    clock: systemClock,
    log,
    authCache: new AuthCache(config.AUTH_CACHE_TTL_MS, { unknownTtlMs: config.UNKNOWN_KEY_CACHE_TTL_MS }),
    keyLimits: {
      usage: new DynamoKeyUsage(client, config.TABLE_NAME),
      limits: {
        startsPerMinute: config.START_RATE_LIMIT_PER_MINUTE,
        maxInFlight: config.MAX_CHECKS_IN_FLIGHT_PER_KEY,
        maxInFlightPerScope: config.MAX_CHECKS_IN_FLIGHT_PER_SCOPE,
      },
    },
    readLimiter: new ReadLimiter({
      perSecond: config.READ_RATE_LIMIT_PER_SECOND,
      burst: config.READ_BURST_PER_KEY,
    }),
    onStarted: metrics && (() => emitNow(metrics, 'checksStarted', 1)),
  };
};
