// Benchmark: what one held account costs a scanner shard, in sockets and memory, with the real scanner in a process of
// its own holding half of N accounts (their sweep sessions and watches up), then all N: the difference per account
// added, and the rest the shard's own (beside a process holding none, for comparison). NOTIFY (one watch per account,
// Dovecot) and IDLE on INBOX and junk (a watch each, as on Gmail) apart. Checks that the code's constants
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

/**
 * One shard process over `accounts` with 2 checks waiting for each of the first `first` of them, its watches as
 * `notify` says; with `first` short of them all, 2 more checks for the rest started after its first sweep, swept and
 * held by the same process (`more`).
 */
const holding = async (
  accounts: AccountEntry[],
  first: number,
  notify: boolean,
  caFile?: string,
): Promise<{ held: HeldReport; more?: HeldReport; failed: number }> => {
  const emails = accounts.map((account) => account.email);
  const seeded = await seedChecks(emails.slice(0, first), first > 0 ? 2 : 0);
  const more = first < accounts.length;
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
      heldMore: more,
      beforeWave: async () => (more ? seeded.add(emails.slice(first), 2) : undefined),
      ...(caFile ? { caFile } : {}),
    });
    if (!report?.held || (more && !report.heldMore))
      throw new Error('the shard process reported nothing held');
    return {
      held: report.held,
      ...(report.heldMore ? { more: report.heldMore } : {}),
      failed: report.failed,
    };
  } finally {
    await seeded.close();
  }
};

export const runShardSizingBench = async (options: ShardSizingOptions) => {
  const say = options.progress ?? (() => undefined);
  const count = options.wires[0]?.accounts.length ?? 0;
  const half = Math.floor(count / 2);
  const byWire: Record<string, Record<string, Record<string, number>>> = {};
  for (const wire of options.wires) {
    const modes: Record<string, Record<string, number>> = {};
    for (const [mode, notify] of [
      ['notify', true],
      ['idle', false],
    ] as const) {
      say(
        `shard sizing (${wire.label}, ${mode}): a shard holding none, then ${half}, then all ${count} accounts`,
      );
      const { held: none } = await holding([], 0, notify);
      const run = await holding(wire.accounts, half, notify, wire.caFile);
      const [first, all] = [run.held, run.more ?? run.held];
      // The accounts the same process took on between its two readings: its own memory, the code and TLS context
      // the first sessions loaded, and the spread of RSS between processes cancel out (the row needs none failed).
      const held = count - run.failed;
      const added = Math.max(1, held - half);
      const perAccount = {
        rss: (all.rssMb - first.rssMb) / added,
        heap: (all.heapUsedMb - first.heapUsedMb) / added,
        external: (all.externalMb - first.externalMb) / added,
      };
      modes[mode] = {
        failed: run.failed,
        imapSocketsPerAccount: round(all.imapSockets / Math.max(1, held)),
        imapSocketsAdded: all.imapSockets - first.imapSockets,
        rssMbPerAccount: round(perAccount.rss),
        heapMbPerAccount: round(perAccount.heap),
        externalMbPerAccount: round(perAccount.external),
        /** Everything but the IMAP sockets, holding the accounts: the runtime's, the SDK's pool as it stood. */
        baseDescriptors: all.descriptors - all.imapSockets,
        /**
         * The shard's own memory as it works: the process holding every account, less what they cost by the figures
         * above. More than a process holding none, which never loaded what the first sessions do (code, TLS context).
         */
        baseRssMb: round(all.rssMb - held * Math.max(perAccount.rss, perAccount.heap)),
        idleRssMb: round(none.rssMb),
        halfRssMb: round(first.rssMb),
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
    idleMemoryMb: worst('idleRssMb'),
    failed: worst('failed'),
  };
  const memoryMb = DEFAULT_SETTINGS.scannerMemoryMb;
  return {
    benchmark: 'shardSizing',
    wires: options.wires.map((wire) => wire.label),
    accounts: count,
    /** Held by the process before the rest: the per-account figures are over the accounts added after them. */
    firstAccounts: half,
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
