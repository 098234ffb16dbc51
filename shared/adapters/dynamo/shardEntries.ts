// Owns a check's shard entries: which shards of a layout its accounts fall in, and the small entry it gets in each.
import type { Check } from '../../domain/check';
import { RETENTION_MS } from '../../domain/limits';
import { shardIndexOf } from '../../scanner/shards';
import { checkTimeSortKey, type Item, type ItemType, shardEntryKey, shardOpenPartition } from './keys';
import { TABLE_SCHEMA } from './table';

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
