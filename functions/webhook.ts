// Lambda sending signed webhooks: woken by a delivery's insert on the table's stream, then by its retry messages.
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { composeWebhookLambda } from '../shared/composition/webhookLambda';
import { loadWebhookConfig } from '../shared/config';

const sender = composeWebhookLambda(loadWebhookConfig());

export const handler = async (event: DynamoDBStreamEvent | SQSEvent) =>
  event.Records[0]?.eventSource === 'aws:sqs'
    ? sender.fromQueue(event as SQSEvent)
    : sender.fromStream(event as DynamoDBStreamEvent);
