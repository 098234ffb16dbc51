// Benchmark support: scanner shards as processes of their own (bench/shardWorker.ts), each standing in for one Lambda
// invocation, started together over one table; what each reports when it is done.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccountEntry } from '../shared/local/localConfig';

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

export interface ShardReport {
  firstMs: number;
  firstCpuMs: number;
  steadyMs: number[];
  steadyCpuMs: number[];
  accounts: number;
  accountSweeps: number;
  elapsedMs: number;
  readUnitsPerSweep: number;
  failed: number;
  peakRssMb: number;
  peakHeapUsedMb: number;
  held?: HeldReport;
}

export interface ShardRun {
  endpoint: string;
  table: string;
  accounts: AccountEntry[];
  count: number;
  /** Seconds every shard sweeps back to back after `go` (0: the first sweep only). */
  seconds: number;
  watch: boolean;
  /** Off: INBOX and junk watched apart even where the server has NOTIFY. */
  notify?: boolean;
  held?: boolean;
  /** The first sweep waits for `go` and is the timed part (a loop's start), not the warm-up. */
  firstAfterGo?: boolean;
  /** A CA file the shards trust (IMAP_CA_FILE), for accounts reached over the stack's TLS. */
  caFile?: string;
}

/**
 * Starts `count` shard processes, waits until every one has made its first sweep, tells them all to go at once and
 * returns their reports. A worker that dies before it is ready fails the run instead of leaving the others waiting.
 */
export const runShardProcesses = async (run: ShardRun): Promise<ShardReport[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-shards-'));
  const accountsFile = join(dir, 'accounts.json');
  writeFileSync(accountsFile, JSON.stringify(run.accounts), { mode: 0o600 });
  try {
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
            BENCH_WATCH: String(run.watch),
            BENCH_NOTIFY: String(run.notify ?? true),
            BENCH_HELD: String(run.held ?? false),
            BENCH_FIRST_AFTER_GO: String(run.firstAfterGo ?? false),
            ...(run.caFile ? { BENCH_CA_FILE: run.caFile } : {}),
          },
          stdio: ['pipe', 'pipe', 'inherit'],
        },
      );
      let output = '';
      let markReady: () => void = () => undefined;
      const ready = new Promise<void>((resolve) => (markReady = resolve));
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.startsWith('ready\n')) markReady();
      });
      const done = once(child, 'exit').then(([code]) => {
        if (code !== 0) throw new Error(`shard ${index}/${run.count} exited with ${code}`);
        return JSON.parse(output.slice('ready\n'.length)) as ShardReport;
      });
      return { child, ready, done };
    });
    await Promise.race([
      Promise.all(workers.map((worker) => worker.ready)),
      Promise.all(workers.map((worker) => worker.done)),
    ]);
    for (const worker of workers) worker.child.stdin.end('go\n');
    return await Promise.all(workers.map((worker) => worker.done));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
