// Owns the scanner lease in DynamoDB: a conditional write that lets one loop run at a time.
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ObservableLease } from '../../scanner/scannerPorts';
import { written } from './conditionalWrite';
import { type ItemType, leaseKey } from './keys';

export class DynamoLease implements ObservableLease {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly name: string,
  ) {}

  async acquire(owner: string, now: number, ttlMs: number, reservedBy?: string): Promise<boolean> {
    const free = 'attribute_not_exists(pk) OR #owner = :owner OR expiresAt < :now';
    return written(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...leaseKey(this.name), type: 'lease' satisfies ItemType, owner, expiresAt: now + ttlMs },
          ConditionExpression: reservedBy === undefined ? free : `${free} OR #owner = :reservedBy`,
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':owner': owner,
            ':now': now,
            ...(reservedBy === undefined ? {} : { ':reservedBy': reservedBy }),
          },
        }),
      ),
    );
  }

  /**
   * Eventually consistent, so half a read unit: a lease taken a moment ago may be missed, which costs the caller only
   * a refused conditional write (acquire) instead of a second loop.
   */
  async heldAt(now: number): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: leaseKey(this.name),
        ProjectionExpression: 'expiresAt',
      }),
    );
    return typeof Item?.expiresAt === 'number' && Item.expiresAt >= now;
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
