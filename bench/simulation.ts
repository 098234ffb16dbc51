// Benchmark: 5,000 seed mailboxes across the number of shards the shard budget derives (shared/domain/shardBudget.ts,
// at the deployed scanner memory), each shard the real scanner in a process of its own as each would be a Lambda
// invocation, against simulated providers (scripted IMAP servers over TLS behind a delay proxy,
// bench/simulatedProvider.ts) and AWS's DynamoDB Local. Every process boots first (not timed: a loop's start is the
// measure), then the loops start a wave at a time, as many as the machine has cores to give each as its own Lambda
// would, each wave once its share of the checks is started (bench/simulationChecks.ts) and the machine has quietened
// after the one before; what each shard's first sweep took from its loop's start and where it went (the store's calls,
// each process group's CPU, failures by kind, accounts left out), the read units each shard's listing spends per sweep
// at the loop's pace, and the descriptors each shard process holds with its watches up.
import { availableParallelism } from 'node:os';
import { DEFAULT_SETTINGS } from '../infra/settings';
import { startDynamoLocal } from '../scripts/lib/dynamoLocal';
import { simulationConcurrency } from '../scripts/lib/scannerInvocations';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DynamoCheckStore } from '../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoCursorStore } from '../shared/adapters/dynamo/DynamoCursorStore';
import { DynamoShardLayout } from '../shared/adapters/dynamo/DynamoShardLayout';
import { DEFAULT_SCAN_INTERVAL_MS } from '../shared/config';
import { DESCRIPTOR_BUDGET, maxAccountsPerShard } from '../shared/domain/shardBudget';
import { ensureTable } from '../shared/local/bootstrap';
import { type AccountEntry, accountEntrySchema } from '../shared/local/localConfig';
import { FULL_LIST_EVERY_MS } from '../shared/scanner/Scanner';
import { shardCountFor } from '../shared/scanner/shards';
import { percentile, round } from './localServer';
import { STAND_IN_TIMEOUTS } from './scaleFixtures';
import { runShardProcesses } from './shardProcesses';
import { breakdownOf, kindsLine } from './simulationBreakdown';
import { leftOut, leftOutLine, waveCheckSeeder } from './simulationChecks';
import { machineQuiet, sampleCpu } from './simulationCpu';
import { startProvider } from './simulationProviders';
import { makeSimulationTls } from './simulationTls';

const TABLE = 'bench-simulation';
/** Lambda gives a function one vCPU at 1,769 MB and a share in proportion below it (AWS Lambda's memory settings). */
const LAMBDA_MB_PER_VCPU = 1769;

export interface SimulationOptions {
  /** Seed mailboxes in all (default 5,000). */
  accounts?: number;
  /** Simulated provider processes the mailboxes are spread over (default 4). */
  providers?: number;
  rttMs?: number;
  /** Implicit TLS to the simulated providers (default on). */
  tls?: boolean;
  /** Accounts each active check waits for; every account is in one check, so every one is swept. */
  accountsPerCheck?: number;
  /** Seconds every shard ticks after its first sweep, for the listing's read units per sweep (default: one full listing). */
  seconds?: number;
  /**
   * Shards whose loops start together (default half the machine's cores, at least one): a Lambda's loop has its
   * invocation's CPU to itself, and the simulated providers and DynamoDB Local need the rest of this machine.
   */
  wave?: number;
  /** Requests made of DynamoDB Local before the shards start, for its compiler (default two an account, 8,000 at least). */
  warmUpRequests?: number;
  progress?: (line: string) => void;
}

/**
 * DynamoDB Local is a JVM that starts interpreting: its first few thousand requests cost several times what later
 * ones do while its compiler catches up. DynamoDB is no cold JVM, so the calls a first sweep makes of it (its
 * accounts' cursors read and written, in batches) are made first, for half as many accounts as `requests`, on
 * accounts no shard has.
 */
const warmStore = async (client: ReturnType<typeof createDocumentClient>, requests: number) => {
  const cursors = new DynamoCursorStore(client, TABLE);
  const cursor = { uidValidity: '1', lastUid: 0 };
  for (let done = 0; done < requests; done += 32) {
    await Promise.all(
      Array.from({ length: 16 }, async (_, lane) => {
        const email = `warm${done + lane}@warm-up.invalid`;
        await cursors.all(email);
        await cursors.putAll(
          email,
          new Map([
            ['INBOX', cursor],
            ['Junk', cursor],
          ]),
        );
      }),
    );
  }
};

const seedOf = (index: number, port: number, secure: boolean): AccountEntry =>
  accountEntrySchema.parse({
    email: `seed${String(index).padStart(5, '0')}@simulated.test`,
    provider: 'imap',
    imap: { host: '127.0.0.1', port, secure },
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
  // Implicit TLS as at a real provider's port 993, verified against the run's own CA (off: plain, for a comparison).
  const tls = options.tls === false ? undefined : makeSimulationTls();
  const providers = await Promise.all(
    Array.from({ length: options.providers ?? 4 }, () => startProvider(rttMs, tls)),
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
    // The layout as it stands long after it was published: every check is filed under the shards it touches.
    await layout.publish(count, Date.now() - 3_600_000);
    const store = new DynamoCheckStore(client, TABLE, layout);
    const accounts = Array.from({ length: total }, (_, index) =>
      seedOf(index, providers[index % providers.length]?.port ?? 0, tls !== undefined),
    );
    const checks = Math.ceil(total / perCheck);
    const seeder = waveCheckSeeder(
      store,
      accounts.map((account) => account.email),
      count,
      checks,
    );
    /** When the oldest check the wave about to go finds was started (epoch ms); its age as each wave goes. */
    let oldestCheck = Date.now();
    const oldestAtGoMs: number[] = [];
    const warmUp = options.warmUpRequests ?? Math.max(8000, 2 * total);
    const warmBegan = performance.now();
    await warmStore(client, warmUp);
    say(
      `simulation: DynamoDB Local warmed by the cursor calls of ${warmUp / 2} accounts in ${Math.round(performance.now() - warmBegan)} ms`,
    );
    const wave = options.wave ?? Math.max(1, Math.floor(availableParallelism() / 2));
    say(
      `simulation: ${count} shard processes start, then their loops ${wave} at a time, each wave after its share of ${checks} checks of ${perCheck} accounts, started over the minute before`,
    );
    let shardPids: number[] = [];
    const cpu = sampleCpu(() => ({
      shards: shardPids,
      providers: providers.flatMap((provider) => (provider.pid ? [provider.pid] : [])),
      dynamoDbLocal: dynamo.pid ? [dynamo.pid] : [],
    }));
    /** How long each wave waited for the machine to quieten after the one before. */
    const waitedMs: number[] = [];
    let spawnedAt = 0;
    let firstGoAt = Number.POSITIVE_INFINITY;
    const reports = await runShardProcesses({
      beforeWave: async (shards) => {
        oldestCheck = await seeder.seed(shards);
      },
      betweenWaves: async () => {
        waitedMs.push(await machineQuiet());
      },
      onSpawn: (pids) => {
        shardPids = pids;
        spawnedAt = performance.now();
      },
      onGo: () => {
        oldestAtGoMs.push(Date.now() - oldestCheck);
        cpu.take();
        firstGoAt = Math.min(firstGoAt, performance.now());
      },
      onFirst: () => cpu.take(),
      wave,
      endpoint: dynamo.endpoint,
      table: TABLE,
      accounts,
      count,
      // A full listing comes every FULL_LIST_EVERY_MS: a window this long holds one in every shard's average.
      seconds: options.seconds ?? Math.ceil((FULL_LIST_EVERY_MS + DEFAULT_SCAN_INTERVAL_MS) / 1000),
      // The loop's own pace: back-to-back ticks would be a listing query every few milliseconds per shard, load on
      // DynamoDB Local that no loop makes, landing on the next wave's first sweep.
      tickMs: DEFAULT_SCAN_INTERVAL_MS,
      // Watches as on a server without NOTIFY (as the simulated one): an INBOX and a junk watch beside each session.
      watch: true,
      notify: false,
      held: true,
      firstAfterGo: true,
      ...(tls ? { caFile: tls.caFile } : {}),
    });
    cpu.stop();
    const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
    const firstMs = sorted(reports.map((report) => report.firstMs));
    // Each wave's window, from its `go` to the end of its slowest first sweep.
    const waves = new Map<number, number>();
    for (const { goAt = 0, firstAt = 0 } of reports) waves.set(goAt, Math.max(waves.get(goAt) ?? 0, firstAt));
    const breakdown = {
      boot: cpu.over([[spawnedAt, firstGoAt]]),
      firstSweeps: cpu.over([...waves]),
      ...breakdownOf(reports),
    };
    // The listing's, as the goal says: the first shard also settles every check, which is not a listing.
    const readUnits = sorted(reports.map((report) => report.listingReadUnitsPerSweep));
    const descriptors = sorted(reports.map((report) => report.held?.descriptors ?? Number.NaN));
    const medianReadUnits = percentile(readUnits, 50);
    const missed = leftOut(
      seeder.owned,
      reports.map((report) => report.accounts),
    );
    return {
      benchmark: 'simulation',
      accounts: total,
      providers: providers.length,
      rttMs,
      tls: tls !== undefined,
      checks,
      accountsPerCheck: perCheck,
      /** Checks' parts started (each wave's share of every check whose accounts its shards hold). */
      checkParts: seeder.parts(),
      /** The oldest check any loop found at its start: a minute and the wait after seeding, never the window's end. */
      oldestCheckAtLoopStartMs: Math.round(Math.max(...oldestAtGoMs)),
      scannerMemoryMb: memoryMb,
      shardsPerWave: wave,
      /** Before each wave after the first, the wait for the machine's busy share to fall to 60 % (10 s at most). */
      quietWaitMs: { p50: Math.round(percentile(sorted(waitedMs), 50)), max: Math.max(0, ...waitedMs) },
      accountsPerShardBound: bound,
      shards: count,
      /** Accounts the shards hold (by the scanner's own hash), whatever their first sweeps started on. */
      accountsPerShard: { min: Math.min(...seeder.owned), max: Math.max(...seeder.owned) },
      firstSweep: {
        maxMs: Math.round(firstMs.at(-1) ?? Number.NaN),
        p50Ms: Math.round(percentile(firstMs, 50)),
        /** The slowest shard's own CPU for its first sweep: what a Lambda with a core of its own would spend. */
        maxCpuMs: Math.round(Math.max(...reports.map((report) => report.firstCpuMs))),
        failed: reports.reduce((sum, report) => sum + report.failed, 0),
        /** Accounts the shards' first sweeps started on: every one, or some check was not listed. */
        accountsSwept: reports.reduce((sum, report) => sum + report.accounts, 0),
        /** Shards whose first sweep left accounts out: each one's index, accounts held and accounts left out. */
        leftOut: missed,
        leftOutLine: leftOutLine(missed),
        /** Why, by kind, most first: a failed sweep's error, or the warning the scanner logged. */
        failures: kindsLine(breakdown.failureKindsFirst),
        /** The slowest shard's first-sweep CPU at the CPU share Lambda gives a function of the scanner's memory. */
        lambdaCpuShare: round(memoryMb / LAMBDA_MB_PER_VCPU),
        atLambdaCpuShareMs: Math.round(
          Math.max(...reports.map((report) => report.firstCpuMs)) / (memoryMb / LAMBDA_MB_PER_VCPU),
        ),
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
      concurrency: simulationConcurrency(total, count),
      breakdown,
    };
  } finally {
    client.destroy();
    await dynamo.stop();
    await Promise.all(providers.map((provider) => provider.stop()));
    tls?.dispose();
  }
};
