// Benchmark support for bench/simulation.ts: where the shards' first sweeps went, over all shards (boot, the listing,
// the store's calls, the account sweeps, the watches) and why sweeps failed, by kind, from each shard's own report.
import { percentile } from './localServer';
import type { ShardReport } from './shardProcesses';

/** `count kind` for the three most frequent kinds, or `none`. */
export const kindsLine = (kinds: Record<string, number>) => {
  const ordered = Object.entries(kinds).sort(([, a], [, b]) => b - a);
  return ordered.length === 0
    ? 'none'
    : ordered
        .slice(0, 3)
        .map(([kind, count]) => `${count} ${kind}`)
        .join('; ');
};

/** Sums each kind of count over the shards' reports. */
const sumKinds = (tables: Record<string, number>[]) => {
  const sum: Record<string, number> = {};
  for (const table of tables)
    for (const [kind, count] of Object.entries(table)) sum[kind] = (sum[kind] ?? 0) + count;
  return sum;
};

/** Where the shards' first sweeps went, over all shards: boot, the listing, the store's calls, the account sweeps. */
export const breakdownOf = (reports: ShardReport[]) => {
  const storeFirst: Record<string, { calls: number; meanMs: number; maxMs: number; failed: number }> = {};
  for (const report of reports) {
    for (const [operation, entry] of Object.entries(report.storeFirst)) {
      const total = storeFirst[operation] ?? { calls: 0, meanMs: 0, maxMs: 0, failed: 0 };
      total.meanMs = Math.round(
        (total.meanMs * total.calls + entry.meanMs * entry.calls) / (total.calls + entry.calls),
      );
      total.calls += entry.calls;
      total.maxMs = Math.max(total.maxMs, entry.maxMs);
      total.failed += entry.failed;
      storeFirst[operation] = total;
    }
  }
  const ordered = (pick: (report: ShardReport) => number) => [...reports.map(pick)].sort((a, b) => a - b);
  const spread = (values: number[]) => ({
    p50: Math.round(percentile(values, 50)),
    max: Math.round(values.at(-1) ?? Number.NaN),
  });
  return {
    readyMs: spread(ordered((report) => report.readyMs ?? Number.NaN)),
    bootCpuMsPerShard: spread(ordered((report) => report.bootCpuMs)),
    firstTickMs: spread(ordered((report) => report.firstTickMs)),
    firstCpuMs: spread(ordered((report) => report.firstCpuMs)),
    /** Each shard's first sweep in the order their loops started: whether later waves ran slower than the first. */
    firstMsInStartOrder: [...reports]
      .sort((a, b) => (a.goAt ?? 0) - (b.goAt ?? 0))
      .map((report) => Math.round(report.firstMs)),
    accountSweepMs: {
      p50OfShards: Math.round(
        percentile(
          ordered((report) => report.accountSweepFirstMs.p50),
          50,
        ),
      ),
      max: Math.round(Math.max(...reports.map((report) => report.accountSweepFirstMs.max))),
    },
    storeFirst,
    failureKindsFirst: sumKinds(reports.map((report) => report.failureKindsFirst)),
    failureKindsSteady: sumKinds(reports.map((report) => report.failureKindsSteady)),
    watchesFirst: sumKinds(reports.map((report) => report.watchesFirst)),
    watchesSteady: sumKinds(reports.map((report) => report.watchesSteady)),
  };
};
