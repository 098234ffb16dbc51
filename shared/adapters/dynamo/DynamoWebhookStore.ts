// Owns webhook deliveries and API keys' webhook secrets in DynamoDB (the secrets sealed under the deployment's key,
// bound to their key id: a table export forges no webhook); every write is conditional on what was read.
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SealContext, Sealer } from '../../domain/sealer';
import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookSecret,
  WebhookSecretStore,
  WebhookStore,
} from '../../webhooks';
import { written } from './conditionalWrite';
import { type ItemType, webhookKey, webhookSecretsKey } from './keys';
import { scanItemsOfType } from './scanAll';
import { deliveryFromItem, deliveryToItem } from './webhookItem';

const secretsContext = (keyId: string): SealContext => ({
  purpose: 'webhook-secrets',
  item: webhookSecretsKey(keyId).pk,
});

const isSecret = (value: unknown): value is WebhookSecret => {
  const { secret, createdAt, expiresAt } = (value ?? {}) as Record<string, unknown>;
  return (
    typeof secret === 'string' &&
    typeof createdAt === 'number' &&
    (expiresAt === undefined || typeof expiresAt === 'number')
  );
};

/** The opened list; anything else is refused naming the key id only (never a secret). */
const secretsFrom = (keyId: string, text: string): WebhookSecret[] => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || !parsed.every(isSecret))
    throw new Error(`the webhook secrets of key ${keyId} are malformed`);
  return parsed;
};

export class DynamoWebhookStore implements WebhookStore, WebhookSecretStore {
  /** `sealer` only where webhook secrets are read or written (sender, admin CLI, npm start); the API needs none. */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sealer?: Sealer,
  ) {}

  private sealing(): Sealer {
    if (!this.sealer)
      throw new Error('this webhook store was made without a sealer: it keeps no webhook secrets');
    return this.sealer;
  }

  private seal(keyId: string, secrets: readonly WebhookSecret[]): Promise<string> {
    return this.sealing().seal(JSON.stringify(secrets), secretsContext(keyId));
  }

  async get(checkId: string): Promise<WebhookDelivery | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: webhookKey(checkId), ConsistentRead: true }),
    );
    return Item ? deliveryFromItem(Item) : undefined;
  }

  /**
   * Puts a new delivery once, keyed by its check: a delivery already there (an earlier settling that failed before
   * its settling write) is kept as it is, so the receiver gets one delivery however often this runs.
   */
  async enqueue(delivery: WebhookDelivery): Promise<void> {
    await written(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: deliveryToItem(delivery),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  recordAttempt(
    delivery: WebhookDelivery,
    attempt: WebhookAttempt,
    next: Pick<WebhookDelivery, 'state' | 'dueAt'>,
  ): Promise<boolean> {
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookKey(delivery.checkId),
          UpdateExpression:
            'SET attempts = list_append(attempts, :attempt), attemptCount = :next, #state = :state, dueAt = :due',
          ConditionExpression: 'attemptCount = :seen AND #state = :queued',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':attempt': [attempt],
            ':next': delivery.attempts.length + 1,
            ':seen': delivery.attempts.length,
            ':state': next.state,
            ':queued': 'queued',
            ':due': next.dueAt,
          },
        }),
      ),
    );
  }

  /** npm start's queue: a Scan, run when the local service starts (on AWS the queue is SQS). */
  async queued(): Promise<WebhookDelivery[]> {
    const items = await scanItemsOfType(this.client, this.tableName, 'webhook');
    return items.map(deliveryFromItem).filter((delivery) => delivery.state === 'queued');
  }

  async secretsOf(keyId: string): Promise<WebhookSecret[]> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: webhookSecretsKey(keyId), ConsistentRead: true }),
    );
    if (typeof Item?.sealedSecrets === 'string') {
      return secretsFrom(keyId, await this.sealing().open(Item.sealedSecrets, secretsContext(keyId)));
    }
    // Stored in clear before sealing began: `reseal` seals them; until then they still sign.
    return Array.isArray(Item?.secrets) ? (Item.secrets as WebhookSecret[]) : [];
  }

  async createFirst(keyId: string, secret: string, now: number): Promise<boolean> {
    const sealedSecrets = await this.seal(keyId, [{ secret, createdAt: now }]);
    return written(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...webhookSecretsKey(keyId),
            type: 'webhookSecrets' satisfies ItemType,
            keyId,
            sealedSecrets,
            newest: now,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async replace(
    keyId: string,
    current: readonly WebhookSecret[],
    next: readonly WebhookSecret[],
  ): Promise<boolean> {
    const newest = current.reduce((latest, secret) => Math.max(latest, secret.createdAt), 0);
    const sealed = await this.seal(keyId, next);
    // The newest secret's creation time stands for the set read: a rotation in between changes it.
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookSecretsKey(keyId),
          UpdateExpression: 'SET sealedSecrets = :next, newest = :newest REMOVE secrets',
          ConditionExpression: 'newest = :seen',
          ExpressionAttributeValues: {
            ':next': sealed,
            ':newest': next.reduce((latest, secret) => Math.max(latest, secret.createdAt), 0),
            ':seen': newest,
          },
        }),
      ),
    );
  }
}
