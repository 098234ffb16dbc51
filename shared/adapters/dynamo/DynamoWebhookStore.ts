// Owns webhook deliveries and API keys' webhook secrets in DynamoDB; every write is conditional on what was read.
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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

export class DynamoWebhookStore implements WebhookStore, WebhookSecretStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

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
    return Array.isArray(Item?.secrets) ? (Item.secrets as WebhookSecret[]) : [];
  }

  createFirst(keyId: string, secret: string, now: number): Promise<boolean> {
    return written(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...webhookSecretsKey(keyId),
            type: 'webhookSecrets' satisfies ItemType,
            keyId,
            secrets: [{ secret, createdAt: now } satisfies WebhookSecret],
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
    // The newest secret's creation time stands for the set read: a rotation in between changes it.
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookSecretsKey(keyId),
          UpdateExpression: 'SET secrets = :next, newest = :newest',
          ConditionExpression: 'newest = :seen',
          ExpressionAttributeValues: {
            ':next': next,
            ':newest': next.reduce((latest, secret) => Math.max(latest, secret.createdAt), 0),
            ':seen': newest,
          },
        }),
      ),
    );
  }
}
