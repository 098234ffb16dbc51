// Owns the AWS webhook sender's wiring and its events: a delivery's insert on the table's stream (its first turn,
// at once) and the retry queue's messages (each later turn); both run the one sending path of npm start.
import { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createDocumentClient } from '../adapters/dynamo/client';
import { KEY_PREFIXES } from '../adapters/dynamo/keys';
import { traced, tracing } from '../adapters/telemetry/tracing';
import { SqsRetryQueue } from '../adapters/webhook/SqsRetryQueue';
import type { WebhookConfig } from '../config';
import { isCheckId } from '../domain/checkId';
import { systemClock } from '../domain/clock';
import { AWS_CALLBACK_POLICY } from '../domain/publicAddress';
import { createLambdaLogger } from '../log';
import { takeDeliveryTurn } from '../webhooks';
import { kmsSealer } from './sealing';
import { buildDeliverDeps } from './webhookDeps';

const checkIdOfKey = (pk: string | undefined): string | undefined => {
  const checkId = pk?.startsWith(KEY_PREFIXES.webhook) ? pk.slice(KEY_PREFIXES.webhook.length) : undefined;
  return checkId && isCheckId(checkId) ? checkId : undefined;
};

const checkIdOfMessage = (body: string): string | undefined => {
  if (body.length > 256) return undefined;
  try {
    const { checkId } = JSON.parse(body) as { checkId?: unknown };
    return typeof checkId === 'string' && isCheckId(checkId) ? checkId : undefined;
  } catch {
    return undefined;
  }
};

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
    /** New deliveries from the stream: a failure throws, so the stream retries the batch (then its dead letters). */
    fromStream: async (event: DynamoDBStreamEvent): Promise<void> => {
      for (const record of event.Records) {
        if (record.eventName !== 'INSERT') continue;
        const checkId = checkIdOfKey(record.dynamodb?.Keys?.pk?.S);
        if (checkId) await takeDeliveryTurn(deps, checkId);
      }
    },
    /** Retry turns: a message whose turn failed is reported, so SQS hands it back (then the dead-letter queue). */
    fromQueue: async (event: SQSEvent): Promise<SQSBatchResponse> => {
      const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
      for (const record of event.Records) {
        const checkId = checkIdOfMessage(record.body);
        if (!checkId) {
          log.warn('dropped a retry message that names no check');
          continue;
        }
        try {
          await takeDeliveryTurn(deps, checkId);
        } catch (error) {
          log.warn('webhook turn failed', { check_id: checkId, error });
          batchItemFailures.push({ itemIdentifier: record.messageId });
        }
      }
      return { batchItemFailures };
    },
  };
};
