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

/** How many loops `accounts` need when one loop holds at most `shardSize` accounts (at least one loop). */
export const shardCountFor = (accounts: number, shardSize: number): number =>
  Math.max(1, Math.ceil(accounts / Math.max(1, shardSize)));

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
