// Owns the registry of test accounts (non-secret fields only) and their health in DynamoDB.
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  paginateQuery,
  paginateScan,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { RegisteredAccount, TestAccount } from '../../domain/account';
import type { AccountRegistry } from '../../domain/ports';
import type { AccountHealthStore } from '../../scanner/scannerPorts';
import { accountFromItem, accountToItem } from './accountItem';
import { isConditionFailed, written } from './conditionalWrite';
import { accountKey, scopeAccountsKey } from './keys';
import { scanItemsOfType } from './scanAll';
import { TABLE_SCHEMA } from './table';

const MAX_ERROR_LENGTH = 300;

export class DynamoAccountRegistry implements AccountRegistry, AccountHealthStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async activeInScope(scope: string): Promise<TestAccount[]> {
    const index = TABLE_SCHEMA.accountsByScope;
    const accounts: TestAccount[] = [];
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: '#pk = :pk',
        FilterExpression: 'active = :true AND attribute_not_exists(unhealthySince)',
        ExpressionAttributeNames: { '#pk': index.partitionKey },
        ExpressionAttributeValues: { ':pk': scopeAccountsKey(scope).gsi1pk, ':true': true },
      },
    );
    for await (const page of pages) {
      accounts.push(...(page.Items ?? []).map(accountFromItem).map(({ health: _, ...account }) => account));
    }
    return accounts;
  }

  async list(): Promise<RegisteredAccount[]> {
    const items = await scanItemsOfType(this.client, this.tableName, 'account');
    return items.map(accountFromItem).sort((a, b) => a.email.localeCompare(b.email));
  }

  /**
   * Every account from the accounts index, eventually consistent: for the calibration, whose role reads account
   * items through the index only, never the table (which holds credentials too).
   */
  async listIndexed(): Promise<RegisteredAccount[]> {
    const accounts: RegisteredAccount[] = [];
    const pages = paginateScan(
      { client: this.client },
      { TableName: this.tableName, IndexName: TABLE_SCHEMA.accountsByScope.name },
    );
    for await (const page of pages) accounts.push(...(page.Items ?? []).map(accountFromItem));
    return accounts.sort((a, b) => a.email.localeCompare(b.email));
  }

  /** Registers or updates an account's fields, leaving its health as the scanner last wrote it. */
  async put(account: TestAccount): Promise<void> {
    const { pk: _pk, sk: _sk, ...fields } = accountToItem(account);
    const names = Object.keys(fields);
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: accountKey(account.email),
        UpdateExpression: `SET ${names.map((_name, index) => `#f${index} = :f${index}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#f${index}`, name])),
        ExpressionAttributeValues: Object.fromEntries(
          names.map((name, index) => [`:f${index}`, fields[name]]),
        ),
      }),
    );
  }

  async remove(email: string): Promise<void> {
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: accountKey(email) }));
  }

  /** Rests a seed (`at`) or brings it back (undefined); false when no such account is registered. */
  async setRested(email: string, at: number | undefined): Promise<boolean> {
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(email),
          UpdateExpression: at === undefined ? 'REMOVE restedAt' : 'SET restedAt = :at',
          ConditionExpression: 'attribute_exists(pk)',
          ...(at === undefined ? {} : { ExpressionAttributeValues: { ':at': at } }),
        }),
      ),
    );
  }

  async recordFailure(email: string, error: string, now: number, unhealthyAfter: number): Promise<boolean> {
    const { Attributes } = await this.client
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(email),
          UpdateExpression: 'ADD failures :one SET lastError = :error, lastFailureAt = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1, ':error': error.slice(0, MAX_ERROR_LENGTH), ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      )
      .catch((caught: unknown) => {
        // A removed account has no health to keep.
        if (isConditionFailed(caught)) return { Attributes: undefined };
        throw caught;
      });
    if (
      !Attributes ||
      Number(Attributes.failures) < unhealthyAfter ||
      Attributes.unhealthySince !== undefined
    ) {
      return false;
    }
    await written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(email),
          UpdateExpression: 'SET unhealthySince = :now',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(unhealthySince)',
          ExpressionAttributeValues: { ':now': now },
        }),
      ),
    );
    return true;
  }

  async recordSuccess(email: string): Promise<boolean> {
    // Only writes when there is something to clear. A refused condition is still billed as a write, so the
    // scanner calls this only for accounts it knows have failures (listFailing, or its own failed sweeps).
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(email),
          UpdateExpression: 'SET failures = :zero REMOVE unhealthySince, lastError',
          ConditionExpression:
            'attribute_exists(pk) AND (failures > :zero OR attribute_exists(unhealthySince))',
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      ),
    );
  }

  async listFailing(): Promise<{ email: string; unhealthy: boolean }[]> {
    // A Scan of the accounts index, not of the table: the index holds account items only, so the scanner's probe
    // (once a minute while checks are active) does not read every check with its results (BENCHMARKS.md, "Design
    // changes the goals made"). An index is read eventually consistent; a failure recorded a moment ago is
    // seen at the next probe, and the scanner knows its own failures anyway.
    const index = TABLE_SCHEMA.accountsByScope;
    const failing: { email: string; unhealthy: boolean }[] = [];
    const pages = paginateScan(
      { client: this.client },
      {
        TableName: this.tableName,
        IndexName: index.name,
        FilterExpression: 'failures > :zero OR attribute_exists(unhealthySince)',
        ExpressionAttributeValues: { ':zero': 0 },
      },
    );
    for await (const page of pages)
      for (const account of (page.Items ?? []).map(accountFromItem))
        failing.push({ email: account.email, unhealthy: account.health.unhealthySince !== undefined });
    return failing.sort((a, b) => a.email.localeCompare(b.email));
  }

  /** One active, healthy account, for the deploy probe's synthetic sweep: the first the accounts index yields. */
  async anyActive(): Promise<string | undefined> {
    const pages = paginateScan(
      { client: this.client, pageSize: 100 },
      {
        TableName: this.tableName,
        IndexName: TABLE_SCHEMA.accountsByScope.name,
        FilterExpression: 'active = :true AND attribute_not_exists(unhealthySince)',
        ExpressionAttributeValues: { ':true': true },
      },
    );
    for await (const page of pages) {
      const [first] = (page.Items ?? []).map(accountFromItem);
      if (first) return first.email;
    }
    return undefined;
  }

  async listUnhealthy(): Promise<string[]> {
    return (await this.list())
      .filter((account) => account.health.unhealthySince !== undefined)
      .map((a) => a.email);
  }
}
