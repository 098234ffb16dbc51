// How many accounts one scanner shard may hold: derived from the per-account costs within 80 % of Lambda's limits,
// planning never puts more on a shard, and a larger configured size is refused where the settings are read.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../infra/settings';
import { DEFAULT_SCAN_SHARD_SIZE, loadLocalSettings, loadScanConfig } from '../../shared/config';
import {
  DESCRIPTOR_BUDGET,
  HELD_ACCOUNT_COST,
  LAMBDA_DESCRIPTORS,
  maxAccountsPerShard,
  SHARD_BASE_COST,
} from '../../shared/domain/shardBudget';
import { shardCountFor, shardIndexOf } from '../../shared/scanner/shards';

/** What a shard of `accounts` holds open and in memory, by the per-account and per-shard costs. */
const costOf = (accounts: number) => ({
  descriptors: SHARD_BASE_COST.descriptors + accounts * HELD_ACCOUNT_COST.descriptors,
  memoryMb: SHARD_BASE_COST.memoryMb + accounts * HELD_ACCOUNT_COST.memoryMb,
});

/** Address populations as seeds are named: numbered, and assorted. */
const populations = {
  numbered: (count: number) =>
    Array.from({ length: count }, (_, index) => `user${String(index).padStart(5, '0')}@mail.test`),
  assorted: (count: number) =>
    Array.from(
      { length: count },
      (_, index) => `seed.${index}.${(index * 7919) % 1000}@s${index % 37}.example`,
    ),
};

describe('accounts per shard', () => {
  it("keeps a full shard under 80 % of Lambda's descriptors and of its memory, and one more would not", () => {
    for (const memoryMb of [256, 448, 512, 1024, 3008]) {
      const bound = maxAccountsPerShard(memoryMb);
      expect(costOf(bound).descriptors).toBeLessThanOrEqual(0.8 * LAMBDA_DESCRIPTORS);
      expect(costOf(bound).memoryMb).toBeLessThanOrEqual(0.8 * memoryMb);
      const over = costOf(bound + 1);
      expect(over.descriptors > DESCRIPTOR_BUDGET || over.memoryMb > 0.8 * memoryMb).toBe(true);
    }
    // Past some memory, descriptors bind: more memory buys no more accounts.
    expect(maxAccountsPerShard(10_240)).toBe(maxAccountsPerShard(4096));
    expect(maxAccountsPerShard()).toBe(maxAccountsPerShard(10_240));
  });

  it("is what the stack deploys by default, and npm start's default fits under it", () => {
    expect(DEFAULT_SETTINGS.scanShardSize).toBe(maxAccountsPerShard(DEFAULT_SETTINGS.scannerMemoryMb));
    expect(DEFAULT_SCAN_SHARD_SIZE).toBeLessThanOrEqual(maxAccountsPerShard());
  });

  it('plans enough shards that the fullest never holds more than the bound', () => {
    for (const memoryMb of [256, 448, 1024]) {
      const bound = maxAccountsPerShard(memoryMb);
      for (const total of [bound, bound + 1, 2 * bound, 1000, 5000, 20_000]) {
        for (const [name, generate] of Object.entries(populations)) {
          const emails = generate(total);
          const count = shardCountFor(emails.length, bound);
          const held = new Array<number>(count).fill(0);
          for (const email of emails)
            held[shardIndexOf(email, count)] = (held[shardIndexOf(email, count)] ?? 0) + 1;
          expect(
            Math.max(...held),
            `${total} ${name} accounts on ${count} shards of ${bound}`,
          ).toBeLessThanOrEqual(bound);
        }
      }
    }
  });

  it('needs one loop while every account fits, and more beyond', () => {
    expect(shardCountFor(0, 100)).toBe(1);
    expect(shardCountFor(100, 100)).toBe(1);
    expect(shardCountFor(101, 100)).toBeGreaterThanOrEqual(2);
    // No more loops than it takes: the planned mean stays within a few spreads of the bound.
    expect(shardCountFor(5000, 200)).toBeLessThan(5000 / 100);
  });

  it('refuses a configured shard size above the bound, naming the numbers', () => {
    const scan = {
      TABLE_NAME: 't',
      AWS_REGION: 'local',
      CREDENTIALS_SECRET_ID: 's',
      SEALING_KEY_ARN: 'k',
      AWS_LAMBDA_FUNCTION_NAME: 'f',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '448',
    };
    const bound = maxAccountsPerShard(448);
    expect(loadScanConfig({ ...scan, SCAN_SHARD_SIZE: String(bound) }).SCAN_SHARD_SIZE).toBe(bound);
    expect(() => loadScanConfig({ ...scan, SCAN_SHARD_SIZE: String(bound + 1) })).toThrow(
      `SCAN_SHARD_SIZE: a shard of ${bound + 1} accounts is above the ${bound} one shard may hold`,
    );
    // Less memory, fewer accounts.
    expect(() =>
      loadScanConfig({ ...scan, AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256', SCAN_SHARD_SIZE: String(bound) }),
    ).toThrow(/and of 256 MB/);
    expect(() => loadLocalSettings({ SCAN_SHARD_SIZE: String(maxAccountsPerShard() + 1) })).toThrow(
      /SCAN_SHARD_SIZE: a shard of \d+ accounts is above/,
    );
  });
});
