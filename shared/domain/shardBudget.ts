// Owns how many accounts one scanner shard may hold: what a held account and the shard's own process cost in file
// descriptors and memory (measured figures rounded up; the shard-sizing bench fails when one understates what it
// measures), against 80 % of Lambda's descriptors and of the function's memory setting.

/** File descriptors one Lambda execution environment may hold open. */
export const LAMBDA_DESCRIPTORS = 1024;

/** A shard plans for this share of each limit: the rest absorbs a watch's reconnect overlapping its old socket. */
export const BUDGET_SHARE = 0.8;

export interface HeldCost {
  descriptors: number;
  memoryMb: number;
}

/**
 * One held account: its sweep session and, where the server has no NOTIFY (Gmail), an INBOX and a junk watch, each
 * a TLS socket with its buffers and parser; the memory is the larger of RSS and heap per account a working shard
 * takes on, over TLS.
 */
export const HELD_ACCOUNT_COST: HeldCost = { descriptors: 3, memoryMb: 1 };

/**
 * The shard's process apart from its accounts, as it works: the runtime, the scanner with what its first sessions
 * load (code, a TLS context), and the AWS SDK's connection pool at its most (50 sockets; the descriptors), which the
 * bench's quiet table never fills.
 */
export const SHARD_BASE_COST: HeldCost = { descriptors: 130, memoryMb: 160 };

/** The descriptors one shard may plan for: 80 % of Lambda's 1,024. */
export const DESCRIPTOR_BUDGET = Math.floor(LAMBDA_DESCRIPTORS * BUDGET_SHARE);

const fitting = (budget: number, base: number, perAccount: number) =>
  Math.max(0, Math.floor((budget - base) / perAccount));

/**
 * The most accounts one shard may hold with `memoryMb` of memory (undefined: descriptors alone, as in `npm start`,
 * where no memory is set): under both budgets, at least one.
 */
export const maxAccountsPerShard = (memoryMb?: number): number => {
  const byDescriptors = fitting(
    DESCRIPTOR_BUDGET,
    SHARD_BASE_COST.descriptors,
    HELD_ACCOUNT_COST.descriptors,
  );
  const byMemory =
    memoryMb === undefined
      ? byDescriptors
      : fitting(memoryMb * BUDGET_SHARE, SHARD_BASE_COST.memoryMb, HELD_ACCOUNT_COST.memoryMb);
  return Math.max(1, Math.min(byDescriptors, byMemory));
};

/** Why a shard size is refused: the bound and what it comes from, for config validation and synth alike. */
export const shardSizeProblem = (shardSize: number, memoryMb?: number): string | undefined => {
  const bound = maxAccountsPerShard(memoryMb);
  if (shardSize <= bound) return undefined;
  const memory = memoryMb === undefined ? '' : ` and of ${memoryMb} MB`;
  return (
    `a shard of ${shardSize} accounts is above the ${bound} one shard may hold: ${HELD_ACCOUNT_COST.descriptors} ` +
    `descriptors and ${HELD_ACCOUNT_COST.memoryMb} MB per account, within ${BUDGET_SHARE * 100} % of Lambda's ` +
    `${LAMBDA_DESCRIPTORS} descriptors${memory}`
  );
};
