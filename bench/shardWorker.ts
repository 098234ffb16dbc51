// One scanner shard as its own process, standing in for one Lambda invocation: logs in to its share of the accounts,
// says `ready`, waits for `go` on stdin (so every shard's timed part starts at once), then sweeps back to back (or a
// tick every BENCH_TICK_MS) for BENCH_SECONDS and prints what it did as JSON: each sweep's time and CPU, the accounts
// it swept, and the DynamoDB read units it spent (the listing), and its peak RSS and heap, and where its first sweep
// went (bench/simulationTrace.ts); with BENCH_HELD, what it holds open once its first sweep's watches are up
// (descriptors, sockets, memory after a full collection), and with BENCH_HELD_MORE again once the accounts of checks
// started before `go` are held too; with BENCH_FIRST_AFTER_GO, the first sweep waits for `go`, is timed as a loop's
// start and says `first` when it ends; with BENCH_CLIENT_ONLY, no scanner and no store: each sweep only lists each of
// its accounts' folders through the scanner's IMAP session, what the IMAP client alone costs a sweep. Driven by
// bench/scale.ts, shardSizing.ts and simulation.ts.
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { StaticCredentialSource } from '../scripts/lib/StaticCredentialSource';
import { indexCredentials } from '../shared/adapters/credentials/mailboxCredentials';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DEFAULT_IMAP_TIMEOUTS, ImapConnector } from '../shared/adapters/imap/ImapConnector';
import { createScanner } from '../shared/composition/scanner';
import { systemClock } from '../shared/domain/clock';
import { ACTIVE_MS } from '../shared/domain/limits';
import { type AccountEntry, accountEntrySchema } from '../shared/local/localConfig';
import { createLogger } from '../shared/log';
import type { MailboxSession } from '../shared/scanner/scannerPorts';
import { inShard, isShard, type Shard } from '../shared/scanner/shards';
import { STAND_IN_TIMEOUTS } from './scaleFixtures';
import { SweepTrace } from './simulationTrace';
import { UsageMeter } from './usageMeter';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

/** Inodes of this process's TCP sockets connected to one of `ports` (read from /proc: what the kernel holds). */
const socketsTo = (ports: Set<number>): Set<string> => {
  const inodes = new Set<string>();
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const remotePort = Number.parseInt(fields[2]?.split(':')[1] ?? '', 16);
      if (ports.has(remotePort) && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
};

/** This process's open descriptors, how many are sockets, and how many of those are IMAP connections. */
const descriptors = (imapPorts: Set<number>) => {
  const fds = readdirSync('/proc/self/fd');
  const imap = socketsTo(imapPorts);
  let sockets = 0;
  let imapSockets = 0;
  for (const fd of fds) {
    try {
      const link = readlinkSync(`/proc/self/fd/${fd}`);
      if (!link.startsWith('socket:')) continue;
      sockets++;
      if (imap.has(link.slice('socket:['.length, -1))) imapSockets++;
    } catch {
      // The directory listing's own descriptor is gone by now.
    }
  }
  return { descriptors: fds.length, sockets, imapSockets };
};

/**
 * What the process holds once the watches its first sweep opened are up: sockets stop changing for a second (at
 * most 30 s), then memory is read after a full collection, so garbage from the sweep is not counted as held.
 */
const heldNow = async (imapPorts: Set<number>) => {
  let last = descriptors(imapPorts);
  for (let waited = 0, stable = 0; stable < 4 && waited < 120; waited++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = descriptors(imapPorts);
    stable = now.sockets === last.sockets ? stable + 1 : 0;
    last = now;
  }
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  const memory = process.memoryUsage();
  return {
    ...last,
    rssMb: memory.rss / 2 ** 20,
    heapUsedMb: memory.heapUsed / 2 ** 20,
    externalMb: memory.external / 2 ** 20,
  };
};

/** What a sweep is started by: the scanner's tick, or the IMAP client alone (clientOnly). */
interface Ticker {
  tick(): Promise<{ started: Promise<{ ok: boolean }>[] }>;
  close(): Promise<void>;
}

/**
 * The IMAP client alone, as a steady sweep that finds nothing new uses it: the shard's accounts, each logged in once
 * through the scanner's own connector, and at each tick one listing of every folder's state (LIST-STATUS) per account.
 * No store, no listing of checks, no reading: what is left of a sweep's CPU when the scanner's own work is taken away.
 */
const clientOnly = (
  accounts: AccountEntry[],
  credentials: StaticCredentialSource,
  shard: Shard,
  trustedCa: string | undefined,
): Ticker => {
  // Warnings to stderr, as the parent shows them: stdout carries `ready` and the report.
  const log = createLogger('shard', 'warn', (line) => process.stderr.write(`${line}\n`));
  const connector = new ImapConnector(log, DEFAULT_IMAP_TIMEOUTS, undefined, undefined, trustedCa);
  const mine = accounts.filter((account) => inShard(account.email, shard));
  let sessions: MailboxSession[] | undefined;
  const open = () =>
    Promise.all(
      mine.map(async (account) => {
        const found = await credentials.get(account.email);
        if (!found) throw new Error(`no credentials for ${account.email}`);
        return connector.open(found);
      }),
    );
  return {
    async tick() {
      sessions ??= await open();
      return {
        started: sessions.map((session) =>
          session.folders().then(
            () => ({ ok: true }),
            () => ({ ok: false }),
          ),
        ),
      };
    },
    async close() {
      await Promise.allSettled((sessions ?? []).map((session) => session.close()));
    },
  };
};

const main = async () => {
  const shard = JSON.parse(env('BENCH_SHARD')) as unknown;
  if (!isShard(shard)) throw new Error('BENCH_SHARD is not a shard');
  const accounts: AccountEntry[] = (JSON.parse(readFileSync(env('BENCH_ACCOUNTS'), 'utf8')) as unknown[]).map(
    (entry) => accountEntrySchema.parse(entry),
  );
  // A local stand-in (dynalite, or DynamoDB Local's JVM) on a crowded machine, not DynamoDB: 10 s an attempt, so a
  // slow store shows as a slow sweep rather than as accounts failed.
  const client = createDocumentClient({
    region: 'local',
    endpoint: env('BENCH_ENDPOINT'),
    timeouts: STAND_IN_TIMEOUTS,
  });
  const meter = new UsageMeter();
  meter.attach(client);
  // Where the first sweep's time goes and why sweeps failed: the store's calls, the scanner's warnings by kind.
  const trace = new SweepTrace();
  trace.attach(client);
  const trustedCa = process.env.BENCH_CA_FILE ? readFileSync(process.env.BENCH_CA_FILE, 'utf8') : undefined;
  const credentials = new StaticCredentialSource(indexCredentials(accounts));
  const ticker: Ticker =
    process.env.BENCH_CLIENT_ONLY === 'true'
      ? clientOnly(accounts, credentials, shard, trustedCa)
      : createScanner({
          client,
          tableName: env('BENCH_TABLE'),
          credentials,
          clock: systemClock,
          log: createLogger('shard', 'warn', (line) => trace.logLine(line)),
          events: {
            swept: (report) => trace.swept(report),
            watched: ({ state }) => trace.watched(state),
          },
          shard,
          // Sweep throughput, as the safety-net sweep and a server without IDLE run it (see bench/scale.ts); the memory
          // sweep (bench/stackCost.ts) watches, as the deployed scanner does, holding a connection per watched folder.
          watch: process.env.BENCH_WATCH === 'true',
          notify: process.env.BENCH_NOTIFY !== 'false',
          // Every pending account held (watched, swept at every tick), as within a check's patience: the bench's checks
          // were started over the last minutes, and the shard's work is what is measured, not how patience thins it.
          patienceMs: ACTIVE_MS,
          ...(trustedCa === undefined ? {} : { trustedCa }),
        }).scanner;
  // The process's peak memory, sampled through the whole run: what a Lambda of this one shard must hold.
  const peak = { rss: 0, heapUsed: 0 };
  const sample = () => {
    const { rss, heapUsed } = process.memoryUsage();
    peak.rss = Math.max(peak.rss, rss);
    peak.heapUsed = Math.max(peak.heapUsed, heapUsed);
  };
  const sampler = setInterval(sample, 25);
  let failedTicks = 0;
  const sweep = async () => {
    const began = performance.now();
    const cpu = process.cpuUsage();
    // A tick the store fails (dynalite timing out on a crowded machine) is a failed sweep of every account, counted
    // and reported, not the end of the run.
    const tick = await ticker.tick().catch((error: unknown) => {
      process.stderr.write(`shard tick failed: ${error instanceof Error ? error.message : String(error)}\n`);
      failedTicks++;
      return { started: [] };
    });
    // The listing (and the first shard's settling, the probe of failing accounts) before any account is read.
    const tickMs = performance.now() - began;
    const sweeps = await Promise.all(tick.started);
    const used = process.cpuUsage(cpu);
    return {
      ms: performance.now() - began,
      tickMs,
      // This process's own CPU for the sweep: what a Lambda invocation with a core of its own would spend.
      cpuMs: (used.user + used.system) / 1000,
      accounts: sweeps.length,
      failed: sweeps.filter((s) => !s.ok).length,
    };
  };
  const go = async () => {
    process.stdout.write('ready\n');
    process.stdin.setEncoding('utf8');
    for (let said = ''; !said.includes('go'); ) said += String((await once(process.stdin, 'data'))[0]);
  };
  // BENCH_FIRST_AFTER_GO: the first sweep is the timed part, as a loop's start (bench/simulation.ts).
  const firstAfterGo = process.env.BENCH_FIRST_AFTER_GO === 'true';
  // What booting the process cost before its loop could start: module loading and transpiling, the scanner's assembly.
  const boot = { ms: performance.now(), cpu: process.cpuUsage() };
  if (firstAfterGo) await go();
  const first = await sweep();
  trace.phase = 'steady';
  // The parent starts the next wave of loops once this one's first sweeps have ended (bench/shardProcesses.ts).
  if (firstAfterGo) process.stdout.write('first\n');
  const imapPorts = new Set(accounts.map((account) => account.imap.port));
  const held = process.env.BENCH_HELD === 'true' ? await heldNow(imapPorts) : undefined;
  if (!firstAfterGo) await go();
  // BENCH_HELD_MORE: the accounts of checks started before `go` are swept and held too, and measured again.
  let moreFailed = 0;
  const heldMore =
    held && process.env.BENCH_HELD_MORE === 'true'
      ? await sweep().then((more) => {
          moreFailed = more.failed;
          return heldNow(imapPorts);
        })
      : undefined;
  const readUnitsBefore = meter.report().readUnits;
  const began = performance.now();
  const steady = [];
  // BENCH_TICK_MS: ticks start no closer than the loop's interval, as the loop runs them (0: back to back).
  const tickMs = Number(process.env.BENCH_TICK_MS ?? '0');
  while (performance.now() - began < Number(env('BENCH_SECONDS')) * 1000) {
    const tickBegan = performance.now();
    steady.push(await sweep());
    const rest = tickMs - (performance.now() - tickBegan);
    if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  }
  const elapsedMs = performance.now() - began;
  const readUnits = meter.report().readUnits - readUnitsBefore;
  sample();
  clearInterval(sampler);
  await ticker.close();
  client.destroy();
  // The report can run to hundreds of KB: exit only once the pipe has taken all of it (process.exit drops the rest).
  const report = `${JSON.stringify({
    firstMs: first.ms,
    firstCpuMs: first.cpuMs,
    firstTickMs: first.tickMs,
    steadyMs: steady.map((run) => run.ms),
    steadyCpuMs: steady.map((run) => run.cpuMs),
    accounts: first.accounts,
    accountSweeps: steady.reduce((sum, run) => sum + run.accounts, 0),
    elapsedMs,
    readUnitsPerSweep: readUnits / Math.max(steady.length, 1),
    listingReadUnitsPerSweep: trace.listingReadUnits / Math.max(steady.length, 1),
    failed: first.failed + moreFailed + steady.reduce((sum, run) => sum + run.failed, 0) + failedTicks,
    peakRssMb: peak.rss / 2 ** 20,
    peakHeapUsedMb: peak.heapUsed / 2 ** 20,
    held,
    heldMore,
    bootMs: boot.ms,
    bootCpuMs: (boot.cpu.user + boot.cpu.system) / 1000,
    ...trace.report(),
  })}\n`;
  await new Promise<void>((resolve) => process.stdout.write(report, () => resolve()));
  process.exit(0);
};

main().catch((error: unknown) => {
  process.stderr.write(`shard worker failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
