// Benchmark: what one held account costs a scanner shard, in sockets and memory, with the real scanner holding N
// accounts (their sweep sessions and watches up) in a process of its own against one holding none; NOTIFY (one watch
// per account, Dovecot) and IDLE on INBOX and junk (a watch each, as on Gmail) apart. Checks that the code's constants
// (shared/domain/shardBudget.ts) are at least what it measured, and what shard size they give.
import { DEFAULT_SETTINGS } from '../infra/settings';
import {
  BUDGET_SHARE,
  DESCRIPTOR_BUDGET,
  HELD_ACCOUNT_COST,
  LAMBDA_DESCRIPTORS,
  maxAccountsPerShard,
  SHARD_BASE_COST,
} from '../shared/domain/shardBudget';
import type { AccountEntry } from '../shared/local/localConfig';
import { round } from './localServer';
import { seedChecks, TABLE } from './scaleFixtures';
import { type HeldReport, runShardProcesses } from './shardProcesses';
import type { Wire } from './wire';

export interface ShardSizingOptions {
  /** The same accounts over each wire measured (bench/wire.ts): loopback plain, and TLS. */
  wires: Wire[];
  progress?: (line: string) => void;
}

/** One shard process over `accounts` with 2 checks waiting for each, its watches as `notify` says. */
const holding = async (
  accounts: AccountEntry[],
  notify: boolean,
  caFile?: string,
): Promise<HeldReport & { failed: number }> => {
  const seeded = await seedChecks(
    accounts.map((account) => account.email),
    accounts.length > 0 ? 2 : 0,
  );
  try {
    const [report] = await runShardProcesses({
      endpoint: seeded.endpoint,
      table: TABLE,
      accounts,
      count: 1,
      seconds: 0,
      watch: true,
      notify,
      held: true,
      ...(caFile ? { caFile } : {}),
    });
    if (!report?.held) throw new Error('the shard process reported nothing held');
    return { ...report.held, failed: report.failed };
  } finally {
    await seeded.close();
  }
};

export const runShardSizingBench = async (options: ShardSizingOptions) => {
  const say = options.progress ?? (() => undefined);
  const count = options.wires[0]?.accounts.length ?? 0;
  const byWire: Record<string, Record<string, Record<string, number>>> = {};
  for (const wire of options.wires) {
    const modes: Record<string, Record<string, number>> = {};
    for (const [mode, notify] of [
      ['notify', true],
      ['idle', false],
    ] as const) {
      say(`shard sizing (${wire.label}, ${mode}): a shard holding none, then ${count} accounts`);
      const none = await holding([], notify);
      const all = await holding(wire.accounts, notify, wire.caFile);
      // An account whose sweep failed holds nothing: the costs are per account held (the row needs none failed).
      const held = Math.max(1, count - all.failed);
      modes[mode] = {
        failed: all.failed,
        imapSocketsPerAccount: round(all.imapSockets / held),
        rssMbPerAccount: round((all.rssMb - none.rssMb) / held),
        heapMbPerAccount: round((all.heapUsedMb - none.heapUsedMb) / held),
        externalMbPerAccount: round((all.externalMb - none.externalMb) / held),
        /** Everything but the IMAP sockets, holding the accounts: the runtime's, the SDK's pool as it stood. */
        baseDescriptors: all.descriptors - all.imapSockets,
        baseRssMb: round(none.rssMb),
        rssMb: round(all.rssMb),
        descriptors: all.descriptors,
      };
    }
    // By what the wire is (plain or tls), whatever round trip it adds: a held session's cost does not wait.
    byWire[wire.label.split('+')[0] ?? wire.label] = modes;
  }
  const all = Object.values(byWire).flatMap((modes) => Object.values(modes));
  const worst = (key: string) => Math.max(...all.map((mode) => mode[key] ?? Number.NaN));
  const measured = {
    descriptorsPerAccount: worst('imapSocketsPerAccount'),
    // The larger of RSS and heap: RSS alone can hide growth the allocator had reserved before.
    memoryMbPerAccount: Math.max(worst('rssMbPerAccount'), worst('heapMbPerAccount')),
    baseDescriptors: worst('baseDescriptors'),
    baseMemoryMb: worst('baseRssMb'),
    failed: worst('failed'),
  };
  const memoryMb = DEFAULT_SETTINGS.scannerMemoryMb;
  return {
    benchmark: 'shardSizing',
    wires: options.wires.map((wire) => wire.label),
    accounts: count,
    byWire,
    measured,
    constants: {
      descriptorsPerAccount: HELD_ACCOUNT_COST.descriptors,
      memoryMbPerAccount: HELD_ACCOUNT_COST.memoryMb,
      baseDescriptors: SHARD_BASE_COST.descriptors,
      baseMemoryMb: SHARD_BASE_COST.memoryMb,
    },
    /** Every constant at least its measurement: the derived shard size does not overstate what a shard holds. */
    constantsHold:
      HELD_ACCOUNT_COST.descriptors >= measured.descriptorsPerAccount &&
      HELD_ACCOUNT_COST.memoryMb >= measured.memoryMbPerAccount &&
      SHARD_BASE_COST.descriptors >= measured.baseDescriptors &&
      SHARD_BASE_COST.memoryMb >= measured.baseMemoryMb,
    scannerMemoryMb: memoryMb,
    lambdaDescriptors: LAMBDA_DESCRIPTORS,
    budgetShare: BUDGET_SHARE,
    descriptorBudget: DESCRIPTOR_BUDGET,
    accountsPerShard: maxAccountsPerShard(memoryMb),
  };
};
