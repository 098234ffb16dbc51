// Owns wiring the webhook sender's dependencies (store, secrets, the guarded poster, the signer), the same way for
// npm start's in-process sender and the AWS sender function.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoWebhookStore } from '../adapters/dynamo/DynamoWebhookStore';
import { SafePoster } from '../adapters/webhook/SafePoster';
import { signWebhook } from '../adapters/webhook/signing';
import type { Clock } from '../domain/clock';
import type { CallbackPolicy } from '../domain/publicAddress';
import type { Sealer } from '../domain/sealer';
import type { Logger } from '../log';
import type { DeliverDeps } from '../webhooks';

export const buildDeliverDeps = (parts: {
  client: DynamoDBDocumentClient;
  tableName: string;
  policy: CallbackPolicy;
  clock: Clock;
  log: Logger;
  /** Opens the webhook secrets: the KMS key on AWS, the local key file under npm start. */
  sealer: Sealer;
}): DeliverDeps => {
  const store = new DynamoWebhookStore(parts.client, parts.tableName, parts.sealer);
  return {
    deliveries: store,
    secrets: store,
    poster: new SafePoster({ policy: parts.policy, now: () => parts.clock.now() }),
    sign: signWebhook,
    clock: parts.clock,
    log: parts.log,
  };
};
