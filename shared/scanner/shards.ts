// Owns splitting the test accounts across concurrent scanner loops: which shard sweeps which account.

/** One of `count` concurrent scanner loops; each sweeps only the accounts that hash to its index. */
export interface Shard {
  index: number;
  count: number;
}

export const SINGLE_SHARD: Shard = { index: 0, count: 1 };

/** FNV-1a over the lower-cased address: stable across processes and releases, so a loop's accounts never move. */
const hash = (email: string): number => {
  let value = 0x811c9dc5;
  for (const char of email.toLowerCase()) {
    value ^= char.codePointAt(0) ?? 0;
    value = Math.imul(value, 0x01000193) >>> 0;
  }
  return value;
};

export const shardIndexOf = (email: string, count: number): number => (count <= 1 ? 0 : hash(email) % count);

export const inShard = (email: string, shard: Shard): boolean =>
  shardIndexOf(email, shard.count) === shard.index;

/**
 * Standard deviations of the hash's spread kept free below a shard's bound: accounts land on shards by hash, not
 * one by one, so the fullest of many shards holds well above their mean (with 5,000 accounts on 30 shards, about
 * a fifth above). Five keeps the fullest under the bound for every population the shard test plans.
 */
const SPREAD_MARGIN = 5;

/** The most accounts a shard may hold on average so that the fullest stays within `maxPerShard`. */
const plannedMean = (maxPerShard: number): number =>
  Math.max(1, Math.floor(((-SPREAD_MARGIN + Math.sqrt(SPREAD_MARGIN ** 2 + 4 * maxPerShard)) / 2) ** 2));

/**
 * How many loops `accounts` need so that no loop holds more than `maxPerShard` of them (at least one loop): one
 * while they all fit, else enough that the hash's spread stays under the bound (shared/domain/shardBudget.ts).
 */
export const shardCountFor = (accounts: number, maxPerShard: number): number =>
  accounts <= maxPerShard ? 1 : Math.ceil(accounts / plannedMean(Math.max(1, maxPerShard)));

export const isShard = (value: unknown): value is Shard => {
  if (typeof value !== 'object' || value === null) return false;
  const { index, count } = value as Record<string, unknown>;
  return (
    Number.isInteger(count) &&
    Number.isInteger(index) &&
    (count as number) >= 1 &&
    (count as number) <= 1000 &&
    (index as number) >= 0 &&
    (index as number) < (count as number)
  );
};
