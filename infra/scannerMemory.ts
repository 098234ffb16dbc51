// Owns the scanner function's default memory: what the largest shard Lambda's descriptors allow needs, from the
// measured cost of a held account and of the shard's own process (shared/domain/shardBudget.ts), within 80 %.
import {
  BUDGET_SHARE,
  HELD_ACCOUNT_COST,
  maxAccountsPerShard,
  SHARD_BASE_COST,
} from '../shared/domain/shardBudget';

/** Lambda's least memory setting, in MB. */
const LAMBDA_MIN_MEMORY_MB = 128;

/** The least memory, in MB, under whose 80 % a shard of `accounts` held accounts fits with its own process. */
export const scannerMemoryFor = (accounts: number): number =>
  Math.max(
    LAMBDA_MIN_MEMORY_MB,
    Math.ceil((SHARD_BASE_COST.memoryMb + accounts * HELD_ACCOUNT_COST.memoryMb) / BUDGET_SHARE),
  );

/**
 * The default: the memory a shard of as many accounts as the descriptors allow needs, so memory never bounds a
 * shard before the descriptors do. Every megabyte is billed each second a loop runs; a deploy with fewer accounts
 * may set less, and its shard size follows (infra/settings.ts).
 */
export const DEFAULT_SCANNER_MEMORY_MB = scannerMemoryFor(maxAccountsPerShard());
