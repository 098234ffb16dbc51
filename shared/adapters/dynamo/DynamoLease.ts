// Owns the scanner lease in DynamoDB: a conditional write that lets one loop run at a time.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Lease } from '../../scanner/ports';
import { type ItemType, leaseKey } from './keys';

export class DynamoLease implements Lease {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly name: string,
  ) {}

  async acquire(owner: string, now: number, ttlMs: number): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...leaseKey(this.name), type: 'lease' satisfies ItemType, owner, expiresAt: now + ttlMs },
          ConditionExpression: 'attribute_not_exists(pk) OR #owner = :owner OR expiresAt < :now',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner, ':now': now },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async release(owner: string): Promise<void> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: leaseKey(this.name),
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
