// Owns the scanner's shard layout in DynamoDB (shared/domain/shardLayout.ts): one item, read strongly consistent.
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ShardLayout, ShardLayoutStore } from '../../domain/shardLayout';
import { written } from './conditionalWrite';
import { type ItemType, shardLayoutKey } from './keys';

export class DynamoShardLayout implements ShardLayoutStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Strongly consistent: a check started after a change must be filed under the new layout (see `since`). */
  async read(): Promise<ShardLayout | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: shardLayoutKey(), ConsistentRead: true }),
    );
    return Item && typeof Item.count === 'number' && typeof Item.since === 'number'
      ? { count: Item.count, since: Item.since }
      : undefined;
  }

  /**
   * Records `count` as of `now` unless it is already the layout (then its `since` stays): true when it changed.
   * Read first, since the scanner publishes at every wake-up and a refused conditional write is billed as a write.
   */
  async publish(count: number, now: number): Promise<boolean> {
    if ((await this.read())?.count === count) return false;
    return written(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...shardLayoutKey(), type: 'layout' satisfies ItemType, count, since: now },
          ConditionExpression: 'attribute_not_exists(pk) OR #count <> :count',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':count': count },
        }),
      ),
    );
  }
}
