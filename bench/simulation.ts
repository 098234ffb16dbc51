// Benchmark: 5,000 seed mailboxes across the number of shards the shard budget derives (shared/domain/shardBudget.ts,
// at the deployed scanner memory), each shard the real scanner in a process of its own as each would be a Lambda
// invocation, against simulated providers (scripted IMAP servers behind a delay proxy, bench/simulatedProvider.ts)
// and AWS's DynamoDB Local. Every loop starts at once; what each shard's first sweep took from that start, the read
// units each shard's listing spends per sweep, and the descriptors each shard process holds with its watches up.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_SETTINGS } from '../infra/settings';
import { startDynamoLocal } from '../scripts/lib/dynamoLocal';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DynamoCheckStore } from '../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoShardLayout } from '../shared/adapters/dynamo/DynamoShardLayout';
import { newCheck } from '../shared/domain/check';
import { newCheckId } from '../shared/domain/checkId';
import { DESCRIPTOR_BUDGET, maxAccountsPerShard } from '../shared/domain/shardBudget';
import { ensureTable } from '../shared/local/bootstrap';
import { type AccountEntry, accountEntrySchema } from '../shared/local/localConfig';
import { shardCountFor } from '../shared/scanner/shards';
import { percentile, round } from './localServer';
import { STAND_IN_TIMEOUTS } from './scaleFixtures';
import { runShardProcesses } from './shardProcesses';

const TABLE = 'bench-simulation';

export interface SimulationOptions {
  /** Seed mailboxes in all (default 5,000). */
  accounts?: number;
  /** Simulated provider processes the mailboxes are spread over (default 4). */
  providers?: number;
  rttMs?: number;
  /** Accounts each active check waits for; every account is in one check, so every one is swept. */
  accountsPerCheck?: number;
  /** Seconds every shard sweeps after its first sweep, for the listing's read units per sweep. */
  seconds?: number;
  progress?: (line: string) => void;
}

/** A simulated provider process; its proxy's port once it listens. */
const startProvider = async (rttMs: number) => {
  const child = spawn(
    join(import.meta.dirname, '../node_modules/.bin/tsx'),
    [join(import.meta.dirname, 'simulatedProvider.ts')],
    { env: { ...process.env, SIM_RTT_MS: String(rttMs) }, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const [line] = (await Promise.race([
    once(createInterface({ input: child.stdout }), 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`a simulated provider exited with ${code}`);
    }),
  ])) as [string];
  const { port } = JSON.parse(line) as { port: number };
  return {
    port,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
};

const seedOf = (index: number, port: number): AccountEntry =>
  accountEntrySchema.parse({
    email: `seed${String(index).padStart(5, '0')}@simulated.test`,
    provider: 'imap',
    imap: { host: '127.0.0.1', port, secure: false },
    auth: { user: 'seed', pass: 'secret' },
  });

export const runSimulationBench = async (options: SimulationOptions = {}) => {
  const say = options.progress ?? (() => undefined);
  const total = options.accounts ?? 5000;
  const rttMs = options.rttMs ?? 40;
  const perCheck = options.accountsPerCheck ?? 20;
  const memoryMb = DEFAULT_SETTINGS.scannerMemoryMb;
  const bound = maxAccountsPerShard(memoryMb);
  const count = shardCountFor(total, bound);
  say(`simulation: ${total} accounts on ${count} shards of at most ${bound}, providers ${rttMs} ms away`);
  const providers = await Promise.all(
    Array.from({ length: options.providers ?? 4 }, () => startProvider(rttMs)),
  );
  const dynamo = await startDynamoLocal(180_000);
  const client = createDocumentClient({
    region: 'local',
    endpoint: dynamo.endpoint,
    // DynamoDB Local is a JVM on a crowded machine, not DynamoDB.
    timeouts: STAND_IN_TIMEOUTS,
  });
  try {
    await ensureTable(client, TABLE);
    const layout = new DynamoShardLayout(client, TABLE);
    const now = Date.now();
    // The layout as it stands long after it was published: every check is filed under the shards it touches.
    await layout.publish(count, now - 3_600_000);
    const store = new DynamoCheckStore(client, TABLE, layout);
    const accounts = Array.from({ length: total }, (_, index) =>
      seedOf(index, providers[index % providers.length]?.port ?? 0),
    );
    const checks = Math.ceil(total / perCheck);
    say(`simulation: ${checks} checks of ${perCheck} accounts, started over the last 4 minutes`);
    for (let first = 0; first < checks; first += 25) {
      await Promise.all(
        Array.from({ length: Math.min(25, checks - first) }, (_, offset) => {
          const check = first + offset;
          // Every `checks`-th account: a check's accounts spread over the shards as a real one's would.
          const emails = accounts
            .filter((_, index) => index % checks === check)
            .map((account) => account.email);
          return store.create(
            newCheck(newCheckId(), 'simulation', emails, now - 240_000 + (check * 240_000) / checks),
          );
        }),
      );
    }
    say(`simulation: ${count} shard processes start, then every loop at once`);
    const reports = await runShardProcesses({
      endpoint: dynamo.endpoint,
      table: TABLE,
      accounts,
      count,
      seconds: options.seconds ?? 5,
      // Watches as on a server without NOTIFY (as the simulated one): an INBOX and a junk watch beside each session.
      watch: true,
      notify: false,
      held: true,
      firstAfterGo: true,
    });
    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const firstMs = sorted(reports.map((report) => report.firstMs));
    const readUnits = sorted(reports.map((report) => report.readUnitsPerSweep));
    const descriptors = sorted(reports.map((report) => report.held?.descriptors ?? Number.NaN));
    const medianReadUnits = percentile(readUnits, 50);
    return {
      benchmark: 'simulation',
      accounts: total,
      providers: providers.length,
      rttMs,
      checks,
      accountsPerCheck: perCheck,
      scannerMemoryMb: memoryMb,
      accountsPerShardBound: bound,
      shards: count,
      accountsPerShard: {
        min: Math.min(...reports.map((r) => r.accounts)),
        max: Math.max(...reports.map((r) => r.accounts)),
      },
      firstSweep: {
        maxMs: Math.round(firstMs.at(-1) ?? Number.NaN),
        p50Ms: Math.round(percentile(firstMs, 50)),
        /** The slowest shard's own CPU for its first sweep: what a Lambda with a core of its own would spend. */
        maxCpuMs: Math.round(Math.max(...reports.map((report) => report.firstCpuMs))),
        failed: reports.reduce((sum, report) => sum + report.failed, 0),
      },
      readUnitsPerSweep: {
        min: round(readUnits[0] ?? Number.NaN),
        median: round(medianReadUnits),
        max: round(readUnits.at(-1) ?? Number.NaN),
      },
      /** The most read units any shard's listing spends per sweep over the median shard's: 1 is perfectly flat. */
      readUnitSpread: round((readUnits.at(-1) ?? Number.NaN) / Math.max(medianReadUnits, 0.5)),
      descriptors: {
        max: descriptors.at(-1) ?? Number.NaN,
        min: descriptors[0] ?? Number.NaN,
        imapSocketsMax: Math.max(...reports.map((report) => report.held?.imapSockets ?? Number.NaN)),
        budget: DESCRIPTOR_BUDGET,
      },
      peakRssMb: round(Math.max(...reports.map((report) => report.peakRssMb))),
    };
  } finally {
    client.destroy();
    await dynamo.stop();
    await Promise.all(providers.map((provider) => provider.stop()));
  }
};
