// Benchmarks: one sweep over hundreds of real Dovecot accounts with a thousand active checks, the IMAP connections
// each account gets, an idle scanner's logins, and sweep time as shards (concurrent scanner processes) are added.
import { systemClock } from '../shared/domain/clock';
import type { AccountEntry } from '../shared/local/localConfig';
import { runScanLoop } from '../shared/scanner/scanLoop';
import { percentile, round } from './localServer';
import {
  connectionsPerUser,
  loginCountingScanner,
  openOnce,
  seedChecks,
  silentLog,
  TABLE,
} from './scaleFixtures';
import { runShardProcesses } from './shardProcesses';
import type { Wire } from './wire';

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

export interface ScaleOptions {
  accounts: AccountEntry[];
  checks: number;
  /** Sweeps measured after the first (which logs in everywhere). */
  sweeps?: number;
  progress?: (line: string) => void;
}

export const runScaleBench = async (options: ScaleOptions) => {
  const say = options.progress ?? (() => undefined);
  const emails = options.accounts.map((account) => account.email);
  say(`scale: ${options.checks} active checks over ${emails.length} accounts`);
  await openOnce(options.accounts);
  const seeded = await seedChecks(emails, options.checks);
  const { scanner, logins } = loginCountingScanner(seeded.client, options.accounts);
  try {
    const timeSweep = async () => {
      const began = performance.now();
      const tick = await scanner.tick();
      const listedMs = performance.now() - began;
      const sweeps = await Promise.all(tick.started);
      const failed = sweeps.filter((sweep) => !sweep.ok).length;
      const sum = (of: (sweep: (typeof sweeps)[number]) => number) =>
        sweeps.reduce((total, sweep) => total + of(sweep), 0);
      return {
        ms: performance.now() - began,
        listedMs,
        accounts: sweeps.length,
        failed,
        // What first sight read: the last 10 minutes of every folder (other sections' mail, in a full run).
        messagesRead: sum((sweep) => sweep.messagesFetched),
        copiesRecorded: sum((sweep) => sweep.placements),
        accountsWithMail: sweeps.filter((sweep) => sweep.messagesFetched > 0).length,
      };
    };
    const first = await timeSweep();
    const steady: Awaited<ReturnType<typeof timeSweep>>[] = [];
    let maxConnections = 0;
    for (let run = 0; run < (options.sweeps ?? 10); run++) {
      steady.push(await timeSweep());
      const counts = connectionsPerUser();
      for (const email of emails) maxConnections = Math.max(maxConnections, counts.get(email) ?? 0);
    }
    const loginsPerAccount = Math.max(...emails.map((email) => logins.get(email) ?? 0));
    await scanner.close();

    // Idle: no check active (a table of its own), the loop as the schedule runs it.
    const idle = await seedChecks([], 0);
    const idleScanner = loginCountingScanner(idle.client, options.accounts);
    const idleReport = await runScanLoop(
      { scanner: idleScanner.scanner, lease: idleScanner.lease, clock: systemClock, log: silentLog },
      { owner: 'bench', intervalMs: 1000, deadline: Date.now() + 60_000, leaseTtlMs: 10_000, idleGraceMs: 0 },
    );
    await idle.close();
    return {
      benchmark: 'scale',
      accounts: emails.length,
      activeChecks: options.checks,
      firstSweep: {
        ms: Math.round(first.ms),
        listActiveMs: Math.round(first.listedMs),
        failed: first.failed,
        messagesRead: first.messagesRead,
        copiesRecorded: first.copiesRecorded,
        accountsWithMail: first.accountsWithMail,
      },
      steadySweep: {
        medianMs: Math.round(median(steady.map((sweep) => sweep.ms))),
        maxMs: Math.round(Math.max(...steady.map((sweep) => sweep.ms))),
        listActiveMedianMs: Math.round(median(steady.map((sweep) => sweep.listedMs))),
        sweeps: steady.length,
        failed: steady.reduce((sum, sweep) => sum + sweep.failed, 0),
      },
      maxConnectionsPerAccount: maxConnections,
      loginsPerAccount,
      idle: {
        ticks: idleReport.ticks,
        stoppedBecause: idleReport.stoppedBecause,
        logins: [...idleScanner.logins.values()].reduce((sum, count) => sum + count, 0),
      },
    };
  } finally {
    await seeded.close();
  }
};

export interface ShardOptions {
  /** The accounts, over the wire they are reached by (bench/wire.ts). */
  wire: Wire;
  shardSize: number;
  shardCounts: number[];
  checks?: number;
  /** Seconds each shard sweeps back to back once every shard is logged in (default 10). */
  seconds?: number;
  /** IMAP IDLE watches on, as deployed (default off: sweep throughput alone). */
  watch?: boolean;
  /**
   * The IMAP client alone in each process, no scanner (bench/shardWorker.ts): what the client library's own CPU
   * allows the same processes over the same wire.
   */
  clientOnly?: boolean;
  progress?: (line: string) => void;
}

/**
 * Weak scaling: `shardSize` accounts per shard, 1, 2, 4… shards, each a process of its own as each would be a Lambda
 * invocation of its own. Every shard logs in first; then all sweep back to back for the same seconds, started at once.
 * Throughput is account sweeps per second over all shards together: N shards doing N times one shard's work in the
 * same time give N×. Each shard's DynamoDB read units per sweep show what its listing reads.
 */
export const runShardBench = async (options: ShardOptions) => {
  const say = options.progress ?? (() => undefined);
  const rows: {
    shards: number;
    accounts: number;
    /** Account sweeps a second, all shards together, in the timed window. */
    accountSweepsPerSec: number;
    slowestShardMedianMs: number;
    perShardMedianMs: number[];
    /** Each shard process's own CPU per sweep (median): flat when nothing shared grows with the shards. */
    slowestShardCpuMedianMs: number;
    /** DynamoDB read units a shard spends per sweep (its listing of the active checks), the most of any shard. */
    readUnitsPerSweep: number;
    failed: number;
    peakRssMb: number;
    peakHeapUsedMb: number;
  }[] = [];
  for (const count of options.shardCounts) {
    const accounts = options.wire.accounts.slice(0, count * options.shardSize);
    if (accounts.length < count * options.shardSize) break;
    say(
      `${options.clientOnly ? 'IMAP client alone' : 'shards'} (${options.wire.label}): ${count} x ${options.shardSize} accounts`,
    );
    const seeded = await seedChecks(
      accounts.map((account) => account.email),
      options.checks ?? 100,
      count,
    );
    try {
      const reports = await runShardProcesses({
        endpoint: seeded.endpoint,
        table: TABLE,
        accounts,
        count,
        seconds: options.seconds ?? 10,
        watch: options.watch ?? false,
        clientOnly: options.clientOnly ?? false,
        ...(options.wire.caFile ? { caFile: options.wire.caFile } : {}),
      });
      const perShard = reports.map((report) => Math.round(median(report.steadyMs)));
      rows.push({
        shards: count,
        accounts: accounts.length,
        accountSweepsPerSec: round(
          reports.reduce((sum, report) => sum + report.accountSweeps / (report.elapsedMs / 1000), 0),
        ),
        slowestShardMedianMs: Math.max(...perShard),
        perShardMedianMs: perShard,
        slowestShardCpuMedianMs: round(Math.max(...reports.map((report) => median(report.steadyCpuMs)))),
        readUnitsPerSweep: round(Math.max(...reports.map((report) => report.readUnitsPerSweep))),
        failed: reports.reduce((sum, report) => sum + report.failed, 0),
        /** The largest shard process's peak memory. */
        peakRssMb: round(Math.max(...reports.map((report) => report.peakRssMb))),
        peakHeapUsedMb: round(Math.max(...reports.map((report) => report.peakHeapUsedMb))),
      });
    } finally {
      await seeded.close();
    }
  }
  const base = rows[0]?.slowestShardMedianMs ?? Number.NaN;
  const worst = Math.max(...rows.map((row) => row.slowestShardMedianMs));
  return {
    benchmark: options.clientOnly ? 'shards: the IMAP client alone' : 'shards',
    wire: options.wire.label,
    shardSize: options.shardSize,
    rows,
    flatness: round(worst / Math.max(base, 1)),
    /** The most shards' throughput over one shard's: N× is perfect scaling. */
    speedup: round(
      (rows.at(-1)?.accountSweepsPerSec ?? Number.NaN) / (rows[0]?.accountSweepsPerSec ?? Number.NaN),
    ),
  };
};
