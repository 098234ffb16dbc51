// Owns which kinds of item each function may read and which it may write, by partition-key prefix: IAM's
// dynamodb:LeadingKeys conditions on the table statements, so the API never reads credentials and neither start nor
// the scanner can write an API key, an account's registration or (start) credentials.
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { KEY_PREFIXES, type KeyKind } from '../shared/adapters/dynamo/keys';

export interface KeyGrant {
  /** Item kinds GetItem and Query may read. */
  read: readonly KeyKind[];
  /** Item kinds PutItem, UpdateItem, DeleteItem and BatchWriteItem may write. */
  write: readonly KeyKind[];
  /** Attributes UpdateItem may set on an account item (its health), none of its registration; absent: none. */
  accountHealth?: readonly string[];
}

const READS = new Set(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem']);

/**
 * The attributes of an account's health (DynamoAccountRegistry.recordFailure, markUnhealthy, recordSuccess), with
 * the keys every request names: the scanner may change these and nothing else of an account item.
 */
export const ACCOUNT_HEALTH_ATTRIBUTES = [
  'pk',
  'sk',
  'failures',
  'lastError',
  'lastFailureAt',
  'unhealthySince',
] as const;

export const TABLE_KEYS = {
  none: { read: [], write: [] },
  /** The API key and the check; for its report, the seeds' calibration history and the webhook's deliveries. */
  get: { read: ['apiKey', 'check', 'seedHistory', 'controlRun', 'webhook', 'archive', 'history'], write: [] },
  /**
   * The API key, the per-key limits, the layout and the scope's latest control run (its seed marks) read; the
   * check, its shard entries and the limits written.
   */
  start: {
    read: ['apiKey', 'check', 'inFlight', 'scopeInFlight', 'layout', 'controlRun'],
    write: ['check', 'starts', 'inFlight', 'scopeInFlight'],
  },
  /**
   * Checks, cursors, lease, layout and credentials (a rotated token written back), a settled check's webhook
   * delivery and archived report (with the scope's latest control run, for its suspect seeds); of an account, its
   * health only.
   */
  scanner: {
    read: ['check', 'cursor', 'lease', 'layout', 'credentials', 'controlRun'],
    write: ['check', 'cursor', 'lease', 'layout', 'credentials', 'webhook', 'archive', 'history'],
    accountHealth: ACCOUNT_HEALTH_ATTRIBUTES,
  },
  /**
   * The control check, the seeds' history and the scope's control runs, and each control run as a run of the
   * calibration's monitor (never a monitor or its sealed message); accounts come through their index only.
   */
  calibration: {
    read: ['check', 'layout', 'seedHistory', 'controlRun'],
    write: ['check', 'seedHistory', 'controlRun', 'monitorRun'],
  },
  /**
   * The monitors, their sealed messages and runs read, a run's check (and its audit, in the check's partition) as
   * start creates it, the scope's latest control run; the monitor's next run, its run and its check written.
   */
  monitors: {
    read: ['check', 'layout', 'controlRun', 'monitor', 'monitorMessage', 'monitorRun'],
    write: ['check', 'monitor', 'monitorRun'],
  },
} as const satisfies Record<string, KeyGrant>;

/** `ForAllValues`: every partition key a request names must match; a request naming none is not allowed by it. */
const leadingKeysCondition = (kinds: readonly KeyKind[]) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': kinds.map((kind) => `${KEY_PREFIXES[kind]}*`) },
});

/** The table statements of a grant: reads and writes each limited to their item kinds, account health apart. */
export const tableStatements = (
  tableArn: string,
  actions: readonly string[],
  keys: KeyGrant,
): PolicyStatement[] => {
  const reads = actions.filter((action) => READS.has(action));
  const writes = actions.filter((action) => !READS.has(action));
  const statement = (chosen: string[], kinds: readonly KeyKind[]) =>
    chosen.length > 0 && kinds.length > 0
      ? [
          new PolicyStatement({
            actions: chosen,
            resources: [tableArn],
            conditions: leadingKeysCondition(kinds),
          }),
        ]
      : [];
  const health =
    keys.accountHealth && writes.includes('dynamodb:UpdateItem')
      ? [
          new PolicyStatement({
            actions: ['dynamodb:UpdateItem'],
            resources: [tableArn],
            conditions: {
              ...leadingKeysCondition(['account']),
              'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...keys.accountHealth] },
            },
          }),
        ]
      : [];
  return [...statement(reads, keys.read), ...statement(writes, keys.write), ...health];
};
