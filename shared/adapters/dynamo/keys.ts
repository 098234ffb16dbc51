// Owns every key format in the table and the item <-> domain mapping, so no other module spells `CHECK#…`.
import type { RegisteredAccount, TestAccount } from '../../domain/account';
import type { ApiKey } from '../../domain/apiKey';
import { type Category, isCategory } from '../../domain/categories';
import type { Check } from '../../domain/check';
import type { InFlightHolder } from '../../domain/keyLimits';
import { RETENTION_MS } from '../../domain/limits';
import type { PlacementDetails, RecordedDetails } from '../../domain/ports';
import { type Shard, shardIndexOf } from '../../scanner/shards';
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
  | 'layout';
type Item = Record<string, unknown>;

export const checkKey = (checkId: string) => ({ pk: `CHECK#${checkId}`, sk: 'CHECK' });
export const apiKeyKey = (keyHash: string) => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' });
export const accountKey = (email: string) => ({ pk: `ACCOUNT#${email}`, sk: 'ACCOUNT' });
export const scopeAccountsKey = (scope: string) => ({ gsi1pk: `SCOPE#${scope}` });
const scopeAccountSortKey = (email: string) => ({ gsi1sk: `ACCOUNT#${email}` });
export const cursorKey = (email: string, path: string) => ({ pk: `CURSOR#${email}`, sk: `FOLDER#${path}` });
export const leaseKey = (name: string) => ({ pk: `LEASE#${name}`, sk: 'LEASE' });
/** One item per API key and minute, counting its starts (shared/domain/keyLimits.ts). */
export const startWindowKey = (keyId: string, windowStart: number) => ({
  pk: `STARTS#${keyId}`,
  sk: `WINDOW#${windowStart}`,
});
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
 * Every unsettled check sits in one partition of the open-checks index (table.ts), sorted by creation time, so
 * "open checks created after T" is one Query. The check carries these keys until DynamoCheckStore.settle removes them.
 */
export const OPEN_CHECKS = 'OPEN';
export const checkTimeSortKey = (createdAt: number, checkId = '') =>
  `${String(createdAt).padStart(15, '0')}#${checkId}`;
export const openCheckKey = (createdAt: number, checkId: string): Item => ({
  [TABLE_SCHEMA.openChecks.partitionKey]: OPEN_CHECKS,
  [TABLE_SCHEMA.openChecks.sortKey]: checkTimeSortKey(createdAt, checkId),
});

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

/** The shards of a `count`-shard layout that `check`'s accounts fall in, each with those accounts. */
const accountsByShard = (check: Check, count: number): Map<number, string[]> => {
  const byShard = new Map<number, string[]>();
  for (const { email } of check.results) {
    const index = shardIndexOf(email, count);
    const emails = byShard.get(index);
    if (emails) emails.push(email);
    else byShard.set(index, [email]);
  }
  return byShard;
};

/** A new check's shard entries under a `count`-shard layout (none under one shard: it lists the check itself). */
export const shardEntryItems = (check: Check, count: number): Item[] =>
  count <= 1
    ? []
    : [...accountsByShard(check, count)]
        .sort(([a], [b]) => a - b)
        .map(([index, emails]) => ({
          ...shardEntryKey(check.checkId, { index, count }),
          [TABLE_SCHEMA.openChecks.partitionKey]: shardOpenPartition({ index, count }),
          [TABLE_SCHEMA.openChecks.sortKey]: checkTimeSortKey(check.createdAt, check.checkId),
          type: 'shardEntry' satisfies ItemType,
          checkId: check.checkId,
          createdAt: check.createdAt,
          purgeAt: Math.ceil((check.createdAt + RETENTION_MS) / 1000),
          pending: new Set(emails),
        }));

/** The sort keys of a check's shard entries, kept on the check so settling can delete them (a list: no empty set). */
export const shardEntrySortKeys = (entries: readonly Item[]): string[] =>
  entries.map((entry) => String(entry.sk));
/** The keys of a check's shard entries, from the sort keys kept on it (anything else: none). */
export const shardEntryKeysOf = (checkId: string, sortKeys: unknown): Item[] =>
  Array.isArray(sortKeys) ? sortKeys.map((sk) => ({ ...checkKey(checkId), sk: String(sk) })) : [];

const str = (item: Item, name: string): string => {
  const value = item[name];
  if (typeof value !== 'string') throw new Error(`stored item ${String(item.pk)} has no string ${name}`);
  return value;
};
const num = (item: Item, name: string): number => {
  const value = item[name];
  if (typeof value !== 'number') throw new Error(`stored item ${String(item.pk)} has no number ${name}`);
  return value;
};

export interface StoredResult extends RecordedDetails {
  category: Category;
}

/** A recorded result as its item map: the category, when, and the details that are set. */
export const storedResultOf = (category: Category, now: number, details: PlacementDetails): StoredResult => ({
  ...(Object.fromEntries(
    Object.entries(details).filter(([, value]) => value !== undefined),
  ) as PlacementDetails),
  category,
  recordedAt: now,
});

const detailsOf = (stored: Partial<StoredResult> | undefined): RecordedDetails | undefined => {
  if (!stored || stored.category === undefined || stored.category === 'pending') return undefined;
  const { category: _category, ...details } = stored;
  return details;
};

export const checkToItem = (check: Check): Item => {
  const pending = check.results
    .filter((result) => result.category === 'pending')
    .map((result) => result.email);
  return {
    ...checkKey(check.checkId),
    ...openCheckKey(check.createdAt, check.checkId),
    type: 'check' satisfies ItemType,
    checkId: check.checkId,
    scope: check.scope,
    createdAt: check.createdAt,
    purgeAt: Math.ceil((check.createdAt + RETENTION_MS) / 1000),
    emails: check.results.map((result) => result.email),
    results: Object.fromEntries(
      check.results.map((result) => [result.email, { category: result.category } satisfies StoredResult]),
    ),
    received: check.received,
    total: check.results.length,
    // DynamoDB stores no empty set: a check with nothing pending has no `pending` at all.
    ...(pending.length > 0 ? { pending: new Set(pending) } : {}),
    ...(check.providers ? { providers: check.providers } : {}),
  };
};

/**
 * The accounts of a stored check that have not received the message yet, from its `pending` set (which each result
 * write shrinks in the same conditional update), sorted: a set keeps no order. Absent: nothing pending.
 */
export const pendingEmailsOf = (item: Item): string[] =>
  item.pending instanceof Set ? [...(item.pending as Set<string>)].sort() : [];

export const checkFromItem = (item: Item): Check => {
  const emails = item.emails;
  const results = (item.results ?? {}) as Record<string, Partial<StoredResult> | undefined>;
  if (!Array.isArray(emails)) throw new Error(`stored check ${String(item.pk)} has no emails`);
  const details = Object.fromEntries(
    emails.flatMap((email: string) => {
      const recorded = detailsOf(results[email]);
      return recorded ? [[email, recorded] as const] : [];
    }),
  );
  return {
    checkId: str(item, 'checkId'),
    scope: str(item, 'scope'),
    createdAt: num(item, 'createdAt'),
    received: num(item, 'received'),
    results: emails.map((email: string) => {
      const category = results[email]?.category;
      return { email, category: category && isCategory(category) ? category : 'pending' };
    }),
    ...(Object.keys(details).length > 0 ? { details } : {}),
    ...(item.providers && typeof item.providers === 'object'
      ? { providers: item.providers as Record<string, string> }
      : {}),
  };
};

export const apiKeyToItem = (key: ApiKey): Item => ({
  ...apiKeyKey(key.keyHash),
  type: 'apikey' satisfies ItemType,
  keyId: key.keyId,
  keyHash: key.keyHash,
  scope: key.scope,
  label: key.label,
  createdAt: key.createdAt,
  ...(key.expiresAt === undefined ? {} : { expiresAt: key.expiresAt }),
  revoked: key.revoked,
});

export const apiKeyFromItem = (item: Item): ApiKey => ({
  keyId: str(item, 'keyId'),
  keyHash: str(item, 'keyHash'),
  scope: str(item, 'scope'),
  label: str(item, 'label'),
  createdAt: num(item, 'createdAt'),
  ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}),
  revoked: item.revoked === true,
});

export const accountToItem = (account: TestAccount): Item => ({
  ...accountKey(account.email),
  ...scopeAccountsKey(account.scope),
  ...scopeAccountSortKey(account.email),
  type: 'account' satisfies ItemType,
  email: account.email,
  provider: account.provider,
  scope: account.scope,
  active: account.active,
});

export const accountFromItem = (item: Item): RegisteredAccount => ({
  email: str(item, 'email'),
  provider: str(item, 'provider'),
  scope: str(item, 'scope'),
  active: item.active === true,
  health: {
    failures: typeof item.failures === 'number' ? item.failures : 0,
    unhealthySince: typeof item.unhealthySince === 'number' ? item.unhealthySince : undefined,
    lastError: typeof item.lastError === 'string' ? item.lastError : undefined,
  },
});
