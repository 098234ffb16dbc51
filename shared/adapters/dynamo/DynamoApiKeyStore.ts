import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKey } from '../../domain/apiKey';
import type { ApiKeyStore } from '../../domain/ports';
import { apiKeyFromItem, apiKeyToItem } from './apiKeyItem';
import { putOnce } from './conditionalWrite';
import { apiKeyKey } from './keys';
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
    await putOnce(this.client, this.tableName, apiKeyToItem(key), `key ${key.keyId}`);
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
