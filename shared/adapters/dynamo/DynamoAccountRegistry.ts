// Owns the registry of test accounts (non-secret fields only) in DynamoDB.
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { TestAccount } from '../../domain/account';
import type { AccountRegistry } from '../../domain/ports';
import { accountFromItem, accountKey, accountToItem, scopeAccountsKey } from './keys';
import { scanItemsOfType } from './scanAll';
import { TABLE_SCHEMA } from './table';

export class DynamoAccountRegistry implements AccountRegistry {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async activeInScope(scope: string): Promise<TestAccount[]> {
    const { index } = TABLE_SCHEMA;
    const accounts: TestAccount[] = [];
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: '#pk = :pk',
        FilterExpression: 'active = :true',
        ExpressionAttributeNames: { '#pk': index.partitionKey },
        ExpressionAttributeValues: { ':pk': scopeAccountsKey(scope).gsi1pk, ':true': true },
      },
    );
    for await (const page of pages) accounts.push(...(page.Items ?? []).map(accountFromItem));
    return accounts;
  }

  async list(): Promise<TestAccount[]> {
    const items = await scanItemsOfType(this.client, this.tableName, 'account');
    return items.map(accountFromItem).sort((a, b) => a.email.localeCompare(b.email));
  }

  async put(account: TestAccount): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: accountToItem(account) }));
  }

  async remove(email: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: accountKey(email) }));
  }
}
