// Owns the scanner lease in DynamoDB: a conditional write that lets one loop run at a time.
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Lease } from '../../scanner/ports';
import { written } from './conditionalWrite';
import { type ItemType, leaseKey } from './keys';

export class DynamoLease implements Lease {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly name: string,
  ) {}

  async acquire(owner: string, now: number, ttlMs: number): Promise<boolean> {
    return written(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...leaseKey(this.name), type: 'lease' satisfies ItemType, owner, expiresAt: now + ttlMs },
          ConditionExpression: 'attribute_not_exists(pk) OR #owner = :owner OR expiresAt < :now',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner, ':now': now },
        }),
      ),
    );
  }

  /** Only the owner's own lease is removed; one that has passed to another owner is left alone. */
  async release(owner: string): Promise<void> {
    await written(
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: leaseKey(this.name),
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }
}
