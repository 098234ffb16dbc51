// Owns the AWS webhook sender's wiring and its events: a delivery's insert on the table's stream (its first turn,
// at once) and the retry queue's messages (each later turn); both run the one sending path of npm start.
import { SQSClient } from '@aws-sdk/client-sqs';
import { createDocumentClient } from '../adapters/dynamo/client';
import { traced, tracing } from '../adapters/telemetry/tracing';
import { deliveryStream } from '../adapters/webhook/deliveryStream';
import { retryBatch } from '../adapters/webhook/retryBatch';
import { SqsRetryQueue } from '../adapters/webhook/SqsRetryQueue';
import type { WebhookConfig } from '../config';
import { systemClock } from '../domain/clock';
import { AWS_CALLBACK_POLICY } from '../domain/publicAddress';
import { createLambdaLogger } from '../log';
import { takeDeliveryTurn } from '../webhooks';
import { kmsSealer } from './sealing';
import { buildDeliverDeps } from './webhookDeps';

export const composeWebhookLambda = (config: WebhookConfig) => {
  const log = createLambdaLogger('webhook', config.LOG_LEVEL);
  const deps = {
    ...buildDeliverDeps({
      client: traced(createDocumentClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT })),
      tableName: config.TABLE_NAME,
      // On AWS: https to public addresses only, whatever a setting says.
      policy: AWS_CALLBACK_POLICY,
      clock: systemClock,
      log,
      sealer: kmsSealer(config),
    }),
    retries: new SqsRetryQueue(
      traced(new SQSClient({ region: config.AWS_REGION })),
      config.WEBHOOK_QUEUE_URL,
    ),
  };
  return {
    log,
    /** The X-Ray segment of each invocation, where the deploy turned tracing on. */
    tracing: tracing('webhook', config.POWERTOOLS_TRACE_ENABLED === 'true'),
    /**
     * New deliveries from the stream: a record whose turn failed is reported, so the stream retries from it (then its
     * dead letters); a whole batch failing throws.
     */
    fromStream: deliveryStream((checkId) => takeDeliveryTurn(deps, checkId), log),
    /** Retry turns: a message whose turn failed is reported, so SQS hands it back (then the dead-letter queue). */
    fromQueue: retryBatch((checkId) => takeDeliveryTurn(deps, checkId), log),
  };
};
