// Owns every key format in the table, so no other module spells `CHECK#…`; items are mapped in checkItem.ts,
// apiKeyItem.ts and accountItem.ts, a check's shard entries in shardEntries.ts.
import type { InFlightHolder } from '../../domain/keyLimits';
import type { Shard } from '../../scanner/shards';
import { TABLE_SCHEMA } from './table';

export type ItemType =
  | 'check'
  | 'shardEntry'
  | 'apikey'
  | 'account'
  | 'cursor'
  | 'lease'
  | 'starts'
  | 'inflight'
  | 'layout'
  | 'seedHistory'
  | 'controlRun'
  | 'webhook'
  | 'webhookSecrets'
  | 'audit'
  | 'archivedReport'
  | 'historyEntry'
  | 'monitor'
  | 'monitorMessage'
  | 'monitorRun';
export type Item = Record<string, unknown>;

export const checkKey = (checkId: string) => ({ pk: `CHECK#${checkId}`, sk: 'CHECK' });
/** A check's sender audit: beside the check in its partition, so it expires with it and get may read it. */
export const auditKey = (checkId: string) => ({ pk: checkKey(checkId).pk, sk: 'AUDIT' });
export const apiKeyKey = (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' });
export const accountKey = (email: string) => ({ pk: `ACCOUNT#${email}`, sk: 'ACCOUNT' });
/** One account's sealed credentials (credentialItem.ts), apart from its registration so the API never reads them. */
export const credentialKey = (email: string) => ({ pk: `CREDS#${email}`, sk: 'CREDS' });
/** How many accounts have credential items: what the scanner splits into shards, without reading them all. */
export const credentialCountKey = () => ({ pk: 'CREDS#', sk: 'COUNT' });
export const scopeAccountsKey = (scope: string) => ({ gsi1pk: `SCOPE#${scope}` });
export const scopeAccountSortKey = (email: string) => ({ gsi1sk: `ACCOUNT#${email}` });
/** One account's folder cursors, every folder in one item, so a batch read names each account by its full key. */
export const accountCursorsKey = (email: string) => ({ pk: `CURSOR#${email}`, sk: 'FOLDERS' });
/** The earlier layout, one item per folder in the account's partition: read only where the account's item is missing. */
export const cursorKey = (email: string, path: string) => ({ pk: `CURSOR#${email}`, sk: `FOLDER#${path}` });
export const leaseKey = (name: string) => ({ pk: `LEASE#${name}`, sk: 'LEASE' });
/** One item per API key and minute, counting its starts (shared/domain/keyLimits.ts). */
export const startWindowKey = (keyId: string, windowStart: number) => ({
  pk: `STARTS#${keyId}`,
  sk: `WINDOW#${windowStart}`,
});
/** One item per seed and calibration (its control copy's placement), newest last; TTL 30 days (seedHealth.ts). */
export const seedHistoryKey = (email: string, at: number, checkId: string) => ({
  pk: `SEEDHISTORY#${email}`,
  sk: `CAL#${String(at).padStart(15, '0')}#${checkId}`,
});
export const seedHistoryPartition = (email: string) => seedHistoryKey(email, 0, '').pk;
export const SEED_HISTORY_SORT_PREFIX = 'CAL#';
/** One item per scope and calibration: the control's placement per provider and the suspect seeds after it. */
export const controlRunKey = (scope: string, at: number, checkId: string) => ({
  pk: `CONTROLRUN#${scope}`,
  sk: `RUN#${String(at).padStart(15, '0')}#${checkId}`,
});
export const controlRunPartition = (scope: string) => controlRunKey(scope, 0, '').pk;
export const CONTROL_RUN_SORT_PREFIX = 'RUN#';
/** The scanner's shard layout: how many loops split the accounts, and since when (DynamoShardLayout). */
export const shardLayoutKey = () => ({ pk: 'LAYOUT#scanner', sk: 'LAYOUT' });
/**
 * One item per API key, and one per scope, holding its in-flight checks as a map of check id to start time. A scope
 * is operator text: it sits after a prefix no key id can take, so the two kinds never share an item.
 */
export const inFlightKey = (holder: InFlightHolder) =>
  'keyId' in holder
    ? { pk: `INFLIGHT#${holder.keyId}`, sk: 'INFLIGHT' }
    : { pk: `SCOPEINFLIGHT#${holder.scope}`, sk: 'INFLIGHT' };

/**
 * The partition-key prefix of each kind of item, for IAM's dynamodb:LeadingKeys conditions (infra/tableAccess.ts);
 * test/unit/keyPrefixes.test.ts holds every key function above to its prefix.
 */
export const KEY_PREFIXES = {
  check: 'CHECK#',
  apiKey: 'APIKEY#',
  account: 'ACCOUNT#',
  credentials: 'CREDS#',
  cursor: 'CURSOR#',
  lease: 'LEASE#',
  starts: 'STARTS#',
  layout: 'LAYOUT#',
  inFlight: 'INFLIGHT#',
  scopeInFlight: 'SCOPEINFLIGHT#',
  seedHistory: 'SEEDHISTORY#',
  controlRun: 'CONTROLRUN#',
  webhook: 'WEBHOOK#',
  webhookSecrets: 'WHSEC#',
  archive: 'ARCHIVE#',
  history: 'HISTORY#',
  monitor: 'MONITOR#',
  monitorMessage: 'MONITORMSG#',
  monitorRun: 'MONITORRUN#',
} as const;
export type KeyKind = keyof typeof KEY_PREFIXES;

/**
 * Every unsettled check sits in one partition of the open-checks index (table.ts), sorted by creation time, so
 * "open checks created after T" is one Query. The check carries these keys until settling (DynamoOpenChecks.markSettled) removes them.
 */
export const OPEN_CHECKS = 'OPEN';
/** The check's attribute listing its shard entries' sort keys, so settling can delete them. */
export const SHARD_ENTRIES = 'shardEntries';
export const checkTimeSortKey = (createdAt: number, checkId = '') =>
  `${String(createdAt).padStart(15, '0')}#${checkId}`;
/**
 * A check with a callback URL carries a mark at the end of its open-checks sort key (always projected), so settling
 * knows from the index alone which checks must queue a webhook before the write that settles them. Checks started
 * before the mark was renamed carry `#webhook`, read alike until they leave the index (minutes).
 */
const CALLBACK_URL_MARK = '#callbackUrl';
const LEGACY_CALLBACK_URL_MARK = '#webhook';
export const openCheckKey = (createdAt: number, checkId: string, callbackUrl = false): Item => ({
  [TABLE_SCHEMA.openChecks.partitionKey]: OPEN_CHECKS,
  [TABLE_SCHEMA.openChecks.sortKey]:
    `${checkTimeSortKey(createdAt, checkId)}${callbackUrl ? CALLBACK_URL_MARK : ''}`,
});
export const hasCallbackUrlMark = (sortKey: unknown): boolean =>
  typeof sortKey === 'string' &&
  (sortKey.endsWith(CALLBACK_URL_MARK) || sortKey.endsWith(LEGACY_CALLBACK_URL_MARK));

/** A check's webhook delivery: its own partition, outliving the check (retries run for a day and more). */
export const webhookKey = (checkId: string) => ({ pk: `WEBHOOK#${checkId}`, sk: 'DELIVERY' });
/** An API key's webhook secrets, by key id (the key's own item is found by hash). */
export const webhookSecretsKey = (keyId: string) => ({ pk: `WHSEC#${keyId}`, sk: 'WHSEC' });

/**
 * Under a layout of several shards, a check also has one small entry per shard it touches, beside its item (same
 * partition, so it expires with it): that shard's accounts, in that shard's own partition of the open-checks index,
 * so a shard's listing reads only its own accounts' checks.
 */
export const shardOpenPartition = (shard: Shard) => `${OPEN_CHECKS}#${shard.count}#${shard.index}`;
const shardEntrySortKey = (shard: Shard) => `SHARD#${shard.count}#${shard.index}`;
export const shardEntryKey = (checkId: string, shard: Shard) => ({
  ...checkKey(checkId),
  sk: shardEntrySortKey(shard),
});

/** The keys of a check's shard entries, from the sort keys kept on it (anything else: none). */
export const shardEntryKeysOf = (checkId: string, sortKeys: unknown): Item[] =>
  Array.isArray(sortKeys) ? sortKeys.map((sk) => ({ ...checkKey(checkId), sk: String(sk) })) : [];

/** An ended check's archived report (reportArchive.ts): its own partition, outliving the check by the retention. */
export const archivedReportKey = (checkId: string) => ({ pk: `ARCHIVE#${checkId}`, sk: 'REPORT' });
/**
 * A scope's history, one item per archived check sorted by start time, so newest first is one Query. A scope is
 * operator text after a prefix of its own, as in inFlightKey.
 */
export const historyEntryKey = (scope: string, createdAt: number, checkId: string) => ({
  pk: `HISTORY#${scope}`,
  sk: checkTimeSortKey(createdAt, checkId),
});
export const historyPartition = (scope: string) => historyEntryKey(scope, 0, '').pk;
/** A monitor's runs in the history, a partition of their own under the same prefix (names are [a-z0-9_-]). */
export const monitorHistoryKey = (scope: string, monitor: string, createdAt: number, checkId: string) => ({
  pk: `${historyPartition(scope)}#MONITOR#${monitor}`,
  sk: checkTimeSortKey(createdAt, checkId),
});
export const monitorHistoryPartition = (scope: string, monitor: string) =>
  monitorHistoryKey(scope, monitor, 0, '').pk;
/** Every monitor in one partition, sorted by scope then name: a schedule lists them all in one Query. */
export const monitorKey = (scope: string, name: string) => ({ pk: 'MONITOR#', sk: `${scope}#${name}` });
export const MONITOR_PARTITION = 'MONITOR#';
/** A monitor's sealed message, in parts (an item holds at most 400 KB), apart so a listing never reads it. */
export const monitorMessageKey = (scope: string, name: string, part: number) => ({
  pk: `MONITORMSG#${scope}#${name}`,
  sk: `PART#${String(part).padStart(3, '0')}`,
});
/** One item per monitor run: its check and counts per provider, newest last, for the alarm's window. */
export const monitorRunKey = (scope: string, name: string, at: number, checkId: string) => ({
  pk: `MONITORRUN#${scope}#${name}`,
  sk: checkTimeSortKey(at, checkId),
});
export const monitorRunPartition = (scope: string, name: string) => monitorRunKey(scope, name, 0, '').pk;
