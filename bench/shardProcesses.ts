// Benchmark support: scanner shards as processes of their own (bench/shardWorker.ts), each standing in for one Lambda
// invocation, started together over one table; what each reports when it is done.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccountEntry } from '../shared/local/localConfig';
import type { SweepTrace } from './simulationTrace';

/** What a shard process held once its first sweep's watches were up (BENCH_HELD). */
export interface HeldReport {
  descriptors: number;
  sockets: number;
  /** Sockets connected to the accounts' IMAP port: the sweep sessions and the watches. */
  imapSockets: number;
  rssMb: number;
  heapUsedMb: number;
  externalMb: number;
}

export interface ShardReport extends ReturnType<SweepTrace['report']> {
  firstMs: number;
  firstCpuMs: number;
  /** The first sweep's listing, before any account was read. */
  firstTickMs: number;
  /** The process's own time and CPU from its start to being ready to loop. */
  bootMs: number;
  bootCpuMs: number;
  steadyMs: number[];
  steadyCpuMs: number[];
  accounts: number;
  accountSweeps: number;
  elapsedMs: number;
  readUnitsPerSweep: number;
  /** The open-checks listing's share of them (bench/simulationTrace.ts): the settling's reads left out. */
  listingReadUnitsPerSweep: number;
  failed: number;
  peakRssMb: number;
  peakHeapUsedMb: number;
  held?: HeldReport;
  /** What it held after its sweep past `go` (ShardRun.heldMore). */
  heldMore?: HeldReport;
  /** Wall time from spawning the process to its being ready to loop, measured by the parent. */
  readyMs?: number;
  /** When the parent sent `go` and heard the first sweep end (with `firstAfterGo`), on the parent's clock. */
  goAt?: number;
  firstAt?: number;
}

export interface ShardRun {
  endpoint: string;
  table: string;
  accounts: AccountEntry[];
  count: number;
  /** Seconds every shard sweeps back to back after `go` (0: the first sweep only). */
  seconds: number;
  /** The least time between the starts of two ticks after `go` (default 0: back to back, for throughput). */
  tickMs?: number;
  watch: boolean;
  /** Off: INBOX and junk watched apart even where the server has NOTIFY. */
  notify?: boolean;
  held?: boolean;
  /**
   * With `held`: after `go`, one more sweep (the accounts of checks started meanwhile, as by `beforeWave`) and what
   * the process holds then (`heldMore`): the same process before and after, so its own memory cancels out.
   */
  heldMore?: boolean;
  /** The first sweep waits for `go` and is the timed part (a loop's start), not the warm-up. */
  firstAfterGo?: boolean;
  /** A CA file the shards trust (IMAP_CA_FILE), for accounts reached over the stack's TLS. */
  caFile?: string;
  /** No scanner: each process only lists its accounts' folders through the scanner's IMAP session at every tick. */
  clientOnly?: boolean;
  /** Told the shard processes' ids once they are spawned (for reading their CPU). */
  onSpawn?: (pids: number[]) => void;
  /**
   * Shards whose loops start together (default all of them): the next wave goes once every shard of this one has
   * ended its first sweep (with `firstAfterGo`). A machine of a few cores cannot give every shard the core of its own
   * each Lambda has; a wave of as many shards as it can is what one shard's loop start looks like there.
   */
  wave?: number;
  /** Run before each wave goes (before `betweenWaves`), with its shards' indices: what their loops must find. */
  beforeWave?: (shards: number[]) => Promise<void>;
  /** Awaited between one wave's first sweeps and the next wave's `go` (a machine settling). */
  betweenWaves?: () => Promise<void>;
  /** Told just before a wave is sent `go` (the loops' start), and when a shard's first sweep ends. */
  onGo?: () => void;
  onFirst?: () => void;
}

/**
 * Starts `count` shard processes, waits until every one is ready (its first sweep made, or with `firstAfterGo` its
 * boot done), tells them to go (all at once, or a wave at a time) and returns their reports. A worker that dies before it is ready fails the run instead of leaving the others waiting.
 */
export const runShardProcesses = async (run: ShardRun): Promise<ShardReport[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-shards-'));
  const accountsFile = join(dir, 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify(run.accounts), { mode: 0o600 });
  try {
    const spawnedAt = performance.now();
    const workers = Array.from({ length: run.count }, (_, index) => {
      const child = spawn(
        join(import.meta.dirname, '../node_modules/.bin/tsx'),
        [join(import.meta.dirname, 'shardWorker.ts')],
        {
          env: {
            ...process.env,
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            BENCH_ENDPOINT: run.endpoint,
            BENCH_TABLE: run.table,
            BENCH_ACCOUNTS: accountsFile,
            BENCH_SHARD: JSON.stringify({ index, count: run.count }),
            BENCH_SECONDS: String(run.seconds),
            BENCH_TICK_MS: String(run.tickMs ?? 0),
            BENCH_WATCH: String(run.watch),
            BENCH_NOTIFY: String(run.notify ?? true),
            BENCH_HELD: String(run.held ?? false),
            BENCH_HELD_MORE: String(run.heldMore ?? false),
            BENCH_FIRST_AFTER_GO: String(run.firstAfterGo ?? false),
            BENCH_CLIENT_ONLY: String(run.clientOnly ?? false),
            ...(run.caFile ? { BENCH_CA_FILE: run.caFile } : {}),
          },
          stdio: ['pipe', 'pipe', 'inherit'],
        },
      );
      let output = '';
      const times: { readyMs?: number; goAt?: number; firstAt?: number } = {};
      let markReady: () => void = () => undefined;
      const ready = new Promise<void>((resolve) => (markReady = resolve));
      let markFirst: () => void = () => undefined;
      const first = new Promise<void>((resolve) => (markFirst = resolve));
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (times.readyMs === undefined && output.startsWith('ready\n')) {
          times.readyMs = performance.now() - spawnedAt;
          markReady();
        }
        if (times.firstAt === undefined && output.startsWith('ready\nfirst\n')) {
          times.firstAt = performance.now();
          run.onFirst?.();
          markFirst();
        }
      });
      const done = once(child, 'exit').then(([code]) => {
        markFirst();
        if (code !== 0) throw new Error(`shard ${index}/${run.count} exited with ${code}`);
        const report = output.slice(output.indexOf('{'));
        return { ...(JSON.parse(report) as ShardReport), ...times };
      });
      const go = () => {
        times.goAt = performance.now();
        child.stdin.end('go\n');
      };
      return { pid: child.pid, go, ready, first, done };
    });
    run.onSpawn?.(workers.flatMap((worker) => (worker.pid ? [worker.pid] : [])));
    await Promise.race([
      Promise.all(workers.map((worker) => worker.ready)),
      Promise.all(workers.map((worker) => worker.done)),
    ]);
    const wave = run.wave ?? run.count;
    for (let start = 0; start < workers.length; start += wave) {
      const going = workers.slice(start, start + wave);
      await run.beforeWave?.(going.map((_, offset) => start + offset));
      if (start > 0) await run.betweenWaves?.();
      run.onGo?.();
      for (const worker of going) worker.go();
      // Without `firstAfterGo` the first sweep came before `go`: the waves follow one another at once.
      if (run.firstAfterGo) await Promise.all(going.map((worker) => worker.first));
    }
    // In shard index order, as spawned.
    return await Promise.all(workers.map((worker) => worker.done));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
