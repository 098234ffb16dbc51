// Owns the production wiring of the API functions: config read once, one DynamoDB client per process.

import { createDocumentClient } from '../adapters/dynamo/client';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../adapters/dynamo/DynamoApiKeyStore';
import { DynamoCheckStore } from '../adapters/dynamo/DynamoCheckStore';
import { loadApiConfig } from '../config';
import { type Clock, systemClock } from '../domain/clock';
import type { AccountRegistry, ApiKeyStore, CheckStore, ScanTrigger } from '../domain/ports';
import { createLogger, type Logger } from '../log';

export interface ApiDeps {
  keys: ApiKeyStore;
  checks: CheckStore;
  accounts: AccountRegistry;
  clock: Clock;
  log: Logger;
  /**
   * Set by `npm start` to wake its in-process scanner. On AWS it stays unset: the table's stream wakes the scanner
   * on every new check, so start needs no permission beyond the table.
   */
  trigger?: ScanTrigger | undefined;
}

let memo: ApiDeps | undefined;

/** Built on first use and then shared by every handler in the process. */
export const apiDeps = (): ApiDeps => {
  if (memo) return memo;
  const config = loadApiConfig();
  const client = createDocumentClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT });
  const log = createLogger('api', config.LOG_LEVEL);
  memo = {
    keys: new DynamoApiKeyStore(client, config.TABLE_NAME),
    checks: new DynamoCheckStore(client, config.TABLE_NAME),
    accounts: new DynamoAccountRegistry(client, config.TABLE_NAME),
    clock: systemClock,
    log,
  };
  return memo;
};
