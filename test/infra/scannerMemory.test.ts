// The scanner's memory is a deploy setting (scannerMemoryMb), its default derived from the measured cost of a held
// account and of a shard's process: the template takes it, and a value Lambda would refuse stops synth.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCANNER_MEMORY_MB, scannerMemoryFor } from '../../infra/scannerMemory';
import { DEFAULT_SETTINGS } from '../../infra/settings';
import {
  BUDGET_SHARE,
  HELD_ACCOUNT_COST,
  maxAccountsPerShard,
  SHARD_BASE_COST,
} from '../../shared/domain/shardBudget';
import { logicalIdOf, resourcesOf, synthApp } from './synthApp';

const scannerMemory = (context: Record<string, unknown>) => {
  const built = synthApp(context);
  return resourcesOf(built.serviceTemplate)[logicalIdOf(built.service.functions.scanner)]?.Properties
    ?.MemorySize;
};

describe('the default scanner memory', () => {
  const fullShard = maxAccountsPerShard();

  it('is derived from the held-account cost: the least memory whose 80 % holds the largest shard', () => {
    expect(DEFAULT_SETTINGS.scannerMemoryMb).toBe(DEFAULT_SCANNER_MEMORY_MB);
    const needed = SHARD_BASE_COST.memoryMb + fullShard * HELD_ACCOUNT_COST.memoryMb;
    expect(DEFAULT_SCANNER_MEMORY_MB * BUDGET_SHARE).toBeGreaterThanOrEqual(needed);
    expect((DEFAULT_SCANNER_MEMORY_MB - 1) * BUDGET_SHARE).toBeLessThan(needed);
  });

  it('lets the descriptors, not memory, bound the default shard', () => {
    expect(maxAccountsPerShard(DEFAULT_SCANNER_MEMORY_MB)).toBe(fullShard);
    expect(maxAccountsPerShard(DEFAULT_SCANNER_MEMORY_MB - 1)).toBeLessThan(fullShard);
    expect(DEFAULT_SETTINGS.scanShardSize).toBe(fullShard);
  });

  it("grows with the accounts a shard holds, from Lambda's least memory", () => {
    expect(scannerMemoryFor(0)).toBe(Math.max(128, Math.ceil(SHARD_BASE_COST.memoryMb / BUDGET_SHARE)));
    expect(scannerMemoryFor(100)).toBeLessThan(scannerMemoryFor(200));
    expect(scannerMemoryFor(100) * BUDGET_SHARE).toBeGreaterThanOrEqual(
      SHARD_BASE_COST.memoryMb + 100 * HELD_ACCOUNT_COST.memoryMb,
    );
  });
});

describe('scannerMemoryMb', () => {
  // Each synthesizes the whole app, which takes a while on a busy machine.
  it('sizes the scanner function by default from the setting', { timeout: 120_000 }, () => {
    expect(scannerMemory({})).toBe(DEFAULT_SETTINGS.scannerMemoryMb);
  });

  it('sizes it as set with -c scannerMemoryMb', { timeout: 120_000 }, () => {
    expect(scannerMemory({ scannerMemoryMb: '1024' })).toBe(1024);
  });

  it('refuses what Lambda would: under 128 MB or over 10,240 MB', () => {
    expect(() => synthApp({ scannerMemoryMb: 100 })).toThrow(/scannerMemoryMb/);
    expect(() => synthApp({ scannerMemoryMb: 20_000 })).toThrow(/scannerMemoryMb/);
  });
});
