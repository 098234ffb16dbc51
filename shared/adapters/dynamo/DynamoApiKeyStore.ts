// Owns API key records (hashes only) in DynamoDB.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKey } from '../../domain/apiKey';
import { ConflictError } from '../../domain/errors';
import type { ApiKeyStore } from '../../domain/ports';
import { apiKeyFromItem, apiKeyKey, apiKeyToItem } from './keys';
import { scanItemsOfType } from './scanAll';

export class DynamoApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async findByHash(keyHash: string): Promise<ApiKey | undefined> {
    // Consistent so that a revocation takes effect on the very next request.
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: apiKeyKey(keyHash), ConsistentRead: true }),
    );
    return Item ? apiKeyFromItem(Item) : undefined;
  }

  async create(key: ApiKey): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: apiKeyToItem(key),
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException)
        throw new ConflictError(`key ${key.keyId} exists`);
      throw error;
    }
  }

  async list(): Promise<ApiKey[]> {
    const items = await scanItemsOfType(this.client, this.tableName, 'apikey');
    return items.map(apiKeyFromItem).sort((a, b) => a.createdAt - b.createdAt);
  }

  async revoke(keyId: string): Promise<boolean> {
    const key = (await this.list()).find((candidate) => candidate.keyId === keyId);
    if (!key) return false;
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: apiKeyKey(key.keyHash),
        UpdateExpression: 'SET revoked = :true',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':true': true },
      }),
    );
    return true;
  }
}
