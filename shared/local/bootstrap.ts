// Owns preparing a local store at boot: the table, the account registry from the config file, and API keys.

import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import type { DynamoApiKeyStore } from '../adapters/dynamo/DynamoApiKeyStore';
import { createTableInput, SECONDARY_INDEXES, TABLE_SCHEMA } from '../adapters/dynamo/table';
import { validateAccount } from '../domain/account';
import { generateApiKey, hashApiKey, newApiKeyRecord } from '../domain/apiKey';
import type { Clock } from '../domain/clock';
import { ConflictError } from '../domain/errors';
import { sleep } from '../domain/timer';
import type { LocalConfig } from './localConfig';

/**
 * Creates the table of TABLE_SCHEMA unless it exists; false when it did. An existing table without one of the
 * indexes (a data folder from before the open-checks index) stops the start with what to do: dynalite cannot add
 * an index to a table, and a scanner without it would fail on every tick.
 */
export const ensureTable = async (client: DynamoDBDocumentClient, tableName: string): Promise<boolean> => {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    const missing = SECONDARY_INDEXES.filter((index) => !present.has(index.name)).map((index) => index.name);
    if (missing.length > 0)
      throw new Error(
        `table ${tableName} predates index ${missing.join(', ')} (TABLE_SCHEMA): move its data folder aside and start again`,
      );
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    return false;
  }
  for (let attempt = 0; attempt < 50; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await sleep(100);
  }
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.ttlAttribute, Enabled: true },
      }),
    );
  } catch {
    // dynalite has no TTL; expiry never depends on it anyway (see shared/domain/check.ts isExpired).
  }
  return true;
};

/** Makes the registry hold exactly the config file's accounts, so the file stays the one source locally. */
export const syncAccounts = async (registry: DynamoAccountRegistry, config: LocalConfig): Promise<number> => {
  const wanted = config.accounts.map((account) =>
    validateAccount({
      email: account.email,
      provider: account.provider,
      scope: account.scope,
      active: account.active,
    }),
  );
  const keep = new Set(wanted.map((account) => account.email));
  for (const account of await registry.list())
    if (!keep.has(account.email)) await registry.remove(account.email);
  for (const account of wanted) await registry.put(account);
  return wanted.length;
};

export interface IssuedKey {
  key: string;
  scope: string;
}

/**
 * Stores the config file's keys (as hashes) and, on a first run with no key at all, issues one per account
 * scope. Returns the keys issued now: they exist in plaintext only in this return value.
 */
export const ensureApiKeys = async (
  keys: DynamoApiKeyStore,
  config: LocalConfig,
  clock: Clock,
): Promise<IssuedKey[]> => {
  for (const { key, scope, label } of config.apiKeys) {
    if (await keys.findByHash(hashApiKey(key))) continue;
    await keys.create(newApiKeyRecord(key, { scope, label }, clock.now()));
  }
  if ((await keys.list()).length > 0) return [];
  const scopes = [...new Set(config.accounts.map((account) => account.scope))];
  const issued: IssuedKey[] = [];
  for (const scope of scopes.length > 0 ? scopes : ['default']) {
    const key = generateApiKey();
    try {
      await keys.create(newApiKeyRecord(key, { scope, label: 'first local run' }, clock.now()));
      issued.push({ key, scope });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
  }
  return issued;
};
