// Lambda sending signed webhooks: woken by a delivery's insert on the table's stream, then by its retry messages.
import middy from '@middy/core';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { composeWebhookLambda } from '../shared/composition/webhookLambda';
import { loadWebhookConfig } from '../shared/config';
import { lambdaContext } from '../shared/log';

const sender = composeWebhookLambda(loadWebhookConfig());

export const handler = middy(async (event: DynamoDBStreamEvent | SQSEvent) =>
  event.Records[0]?.eventSource === 'aws:sqs'
    ? sender.fromQueue(event as SQSEvent)
    : sender.fromStream(event as DynamoDBStreamEvent),
)
  .use(lambdaContext(sender.log))
  .use(sender.tracing);
