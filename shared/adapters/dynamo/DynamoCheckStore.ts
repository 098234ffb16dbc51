// Owns reading and creating checks in DynamoDB.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Check } from '../../domain/check';
import { ConflictError } from '../../domain/errors';
import type { CheckStore } from '../../domain/ports';
import { checkFromItem, checkKey, checkToItem } from './keys';

export class DynamoCheckStore implements CheckStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(check: Check): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: checkToItem(check),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException)
        throw new ConflictError(`check ${check.checkId} exists`);
      throw error;
    }
  }

  async get(checkId: string): Promise<Check | undefined> {
    // Strongly consistent so that a poll right after the scanner's write sees it.
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: checkKey(checkId), ConsistentRead: true }),
    );
    return Item ? checkFromItem(Item) : undefined;
  }
}
