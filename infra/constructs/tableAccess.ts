// Owns what each function may do to the table: its item actions, its index actions and the kinds of item they touch.
import { type SECONDARY_INDEXES, TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { type KeyGrant, TABLE_KEYS } from '../tableKeys';

export type DynamoAction =
  `dynamodb:${'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchGetItem' | 'BatchWriteItem' | 'Query' | 'Scan'}`;

export type IndexName = (typeof SECONDARY_INDEXES)[number]['name'];

/** Actions on the table's items, and actions on the named indexes (only Query reads an index). */
export interface TableGrant {
  table: readonly DynamoAction[];
  /** Per index, what may be done on it: each index gets only its own actions. */
  indexes: Partial<Record<IndexName, readonly DynamoAction[]>>;
  /** Which kinds of item the table actions may touch (dynamodb:LeadingKeys, infra/tableKeys.ts). */
  keys: KeyGrant;
}

/**
 * What each function may do to the table: exactly the commands its code sends (test/infra/stacks.test.ts asserts
 * each list against the template), never a batch call.
 */
export const TABLE_ACCESS = {
  /** TABLE_NAME only: the shared config loader requires it, the code never touches the table. */
  none: { table: [], indexes: {}, keys: TABLE_KEYS.none },
  /**
   * get reads only: the API key (DynamoApiKeyStore.get) and the check (DynamoCheckStore.get); for the report, the
   * scope's latest control run (Query, DynamoSeedHistory.latestRun).
   */
  get: { table: ['dynamodb:GetItem', 'dynamodb:Query'], indexes: {}, keys: TABLE_KEYS.get },
  /**
   * start: the API key, the in-flight list and the shard layout (GetItem), the check and a first in-flight list
   * (PutItem, putOnce), the check's shard entries under a layout of several shards (BatchWriteItem,
   * DynamoCheckStore.create), the per-minute count and the in-flight list (UpdateItem, DynamoKeyUsage), active
   * accounts of the scope (Query on accountsByScope, DynamoAccountRegistry.activeInScope), the scope's latest
   * control run kept with the check as its seed marks (Query, DynamoSeedHistory.latestRun).
   */
  start: {
    table: [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:Query',
    ],
    indexes: { [TABLE_SCHEMA.accountsByScope.name]: ['dynamodb:Query'] },
    keys: TABLE_KEYS.start,
  },
  /**
   * The scanner: checks (GetItem, UpdateItem, Query on openChecks to list and settle them, BatchWriteItem deleting a
   * settled check's shard entries), cursors (BatchGetItem and BatchWriteItem, each for the accounts a tick sweeps
   * at once; Query on the table for an account still in the earlier per-folder layout), the lease (PutItem, DeleteItem), the shard layout (GetItem, PutItem), account health
   * (UpdateItem, and Scan of accountsByScope: the probe of failing accounts, DynamoAccountRegistry.listFailing, at
   * most once a minute while checks are active, reads account items only).
   */
  scanner: {
    table: [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:Query',
    ],
    indexes: {
      [TABLE_SCHEMA.openChecks.name]: ['dynamodb:Query'],
      [TABLE_SCHEMA.accountsByScope.name]: ['dynamodb:Scan'],
    },
    keys: TABLE_KEYS.scanner,
  },
  /**
   * The calibration: the control check as start creates it (layout GetItem, check PutItem, shard entries
   * BatchWriteItem) and reads it back (GetItem), the seeds' history and the scope's run (BatchWriteItem, Query), the
   * run as the calibration monitor's (PutItem), the seeds from the accounts index (Query for a scope's active ones, Scan for every scope).
   */
  calibration: {
    table: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query'],
    indexes: { [TABLE_SCHEMA.accountsByScope.name]: ['dynamodb:Query', 'dynamodb:Scan'] },
    keys: TABLE_KEYS.calibration,
  },
} as const satisfies Record<string, TableGrant>;
