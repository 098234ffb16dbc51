// Owns the fairness scenario, measured side by side in one run of `npm start` with its default limits: a second
// key's start and GET, unloaded and then while one key floods GET at 10 times its read limit and a flood of made-up
// keys runs (both from a process of their own), in alternating windows so both conditions see the same machine.
// test/local/fairLoad.test.ts asserts what the limits do; bench/fairness.ts reports the p99 ratios against the goal.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_READ_LIMITS } from '../../shared/domain/readLimits';
import type { FloodSpec } from './floodProcess';
import { freePort } from './freePort';
import { madeUpKeys } from './madeUpKeys';
import { pause } from './poll';
import { spawnEntry, spawnNode } from './process';

const MAIN = 'shared/main/start.ts';
const FLOOD = 'scripts/lib/floodProcess.ts';
const KEYS = {
  flooder: 'ipk_fair-load-flooder-key-00000000',
  measured: 'ipk_fair-load-measured-key-0000000',
};
export const FLOOD_FACTOR = 10;
export const MADE_UP_PER_SECOND = 200;
/** 2,000 fresh keys of every shape (one character, 512 characters, base64, `ipk_` with and without a checksum). */
const MADE_UP = madeUpKeys();
/** The measured key's own pace: one start and four GETs every 250 ms, 16 GETs/s, inside its read limit. */
const CYCLE_MS = 250;
const GETS_PER_CYCLE = 4;
/** Short windows, alternating, so both conditions sample the same background (other processes, the scanner). */
const WINDOW_MS = 2000;
/**
 * Windows of each condition: the test's 8 give about 64 starts a condition, whose p99 is their slowest; the bench
 * runs 32 (about 256 starts), so its p99 is the third slowest and one stray pause does not decide the figure.
 */
const TEST_WINDOWS = 8;
export const BENCH_WINDOWS = 32;

/** CPU time the process (every thread: dynalite's too) has used, ms, from /proc. */
const cpuMsOf = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command; in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const p99 = (samples: number[]): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)] ?? Number.NaN;
};
const round = (ms: number) => Math.round(ms * 100) / 100;

/** Starts the flood process; `window` runs `during` with the flood on and answers what the flood sent. */
export const startFlood = async (spec: FloodSpec) => {
  // In a file: 2,000 keys of up to 512 characters are more than one environment variable may hold (128 KB).
  const specDir = mkdtempSync(join(tmpdir(), 'inbox-placement-flood-'));
  writeFileSync(join(specDir, 'flood.json'), JSON.stringify(spec), { mode: 0o600 });
  const child = spawnNode(FLOOD, [], { FLOOD_FILE: join(specDir, 'flood.json') });
  const lines = createInterface({ input: child.stdout });
  const queue: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  lines.on('line', (line) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(line);
    } else queue.push(line);
  });
  const nextLine = () =>
    new Promise<string>((resolve) => {
      const queued = queue.shift();
      if (queued !== undefined) resolve(queued);
      else waiting = resolve;
    });
  const first = await nextLine();
  if (first !== 'ready') throw new Error(`the flood process said "${first.slice(0, 80)}", not ready`);
  return {
    window: async <T>(during: () => Promise<T>) => {
      child.stdin.write('on\n');
      const result = await during();
      child.stdin.write('off\n');
      return { result, sent: JSON.parse(await nextLine()) as Record<string, Record<string, number>> };
    },
    stop: () => {
      child.stdin.write('exit\n');
      child.kill();
      rmSync(specDir, { recursive: true, force: true });
    },
  };
};

export interface FairLoadRun {
  figures: {
    getP99UnloadedMs: number;
    getP99LoadedMs: number;
    getRatio: number;
    startP99UnloadedMs: number;
    startP99LoadedMs: number;
    startRatio: number;
    getSamples: number;
    startSamples: number;
    flooderPerSecond: number;
    flooderSent: number;
    flooderRefused: number;
    flooderServed: number;
    flooderMostServed: number;
    madeUpPerSecond: number;
    madeUpSent: number;
    madeUp401: number;
    /** Distinct made-up keys, each fresh the first time it is sent, and how many of each shape. */
    madeUpKeys: number;
    madeUpShapes: Record<string, number>;
    floodErrors: number;
    serverCpuUnloadedMsPerS: number;
    serverCpuLoadedMsPerS: number;
  };
  /** Every status the measured key was answered with, and how often. */
  measuredStatuses: Record<string, number>;
  /** npm start's exit code once stopped. */
  exitCode: number | null;
}

/** Runs the scenario once against a fresh `npm start` and answers its figures. */
export const runFairLoad = async (windows = TEST_WINDOWS): Promise<FairLoadRun> => {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-fair-load-'));
  // Nothing listens on this port, so the scanner never reaches a real mailbox.
  const imap = { host: '127.0.0.1', port: await freePort(), secure: false };
  const config = {
    accounts: [{ email: 'a@mail.test', scope: 'default', imap, auth: { user: 'a@mail.test', pass: 'x' } }],
    apiKeys: [
      { key: KEYS.flooder, scope: 'default', label: 'flooder' },
      { key: KEYS.measured, scope: 'default', label: 'measured' },
    ],
  };
  writeFileSync(join(dir, 'local.json'), JSON.stringify(config), { mode: 0o600 });
  // The read limits and the auth cache keep their defaults; the measured key's many starts must not meet the
  // start limits, whose writes still run on every start.
  const env = {
    PORT: '0',
    DATA_DIR: join(dir, 'data'),
    LOCAL_CONFIG: join(dir, 'local.json'),
    LOG_LEVEL: 'error',
    START_RATE_LIMIT_PER_MINUTE: '100000',
    MAX_CHECKS_IN_FLIGHT_PER_KEY: '10000',
    MAX_CHECKS_IN_FLIGHT_PER_SCOPE: '10000',
    // Its mailbox never answers; it must stay in new checks for the whole run all the same.
    UNHEALTHY_AFTER_FAILURES: '1000',
  };
  const service = await spawnEntry(MAIN, env, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  let flood: Awaited<ReturnType<typeof startFlood>> | undefined;
  let run: Omit<FairLoadRun, 'exitCode'>;
  let exitCode: number | null;
  try {
    const base = service.match[1] as string;
    const as = (key: string) => ({ authorization: `Bearer ${key}` });
    const statuses = new Map<number, number>();
    const timed = async (method: 'GET' | 'POST', path: string, into: number[]) => {
      const began = performance.now();
      const response = await fetch(`${base}${path}`, { method, headers: as(KEYS.measured) });
      const text = await response.text();
      into.push(performance.now() - began);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      return text;
    };
    /** The measured key's traffic for `ms`: its own steady pace, whatever else is going on. */
    const measure = async (ms: number, into: { start: number[]; get: number[] }) => {
      const end = performance.now() + ms;
      // At least CYCLE_MS from one cycle's start to the next: a slow cycle is never made up with a burst.
      for (let cycle = performance.now(); cycle < end; cycle = performance.now()) {
        const { check_id } = JSON.parse(await timed('POST', '/api/spam-check/start', into.start)) as {
          check_id: string;
        };
        for (let index = 0; index < GETS_PER_CYCLE; index++) {
          await timed('GET', `/api/spam-check/${check_id}`, into.get);
        }
        await pause(Math.max(0, cycle + CYCLE_MS - performance.now()));
      }
    };

    const flooderCheck = (await (
      await fetch(`${base}/api/spam-check/start`, { method: 'POST', headers: as(KEYS.flooder) })
    ).json()) as { check_id: string };
    const floodPath = `/api/spam-check/${flooderCheck.check_id}`;
    const running = await startFlood({
      baseUrl: base,
      floods: [
        {
          name: 'flooder',
          perSecond: FLOOD_FACTOR * DEFAULT_READ_LIMITS.perSecond,
          path: floodPath,
          keys: [KEYS.flooder],
        },
        { name: 'madeUp', perSecond: MADE_UP_PER_SECOND, path: floodPath, keys: MADE_UP.keys },
      ],
    });
    flood = running;

    // Warm both sides up (JIT, connections, the made-up keys' first reads), unmeasured.
    const unmeasured = { start: [], get: [] };
    await measure(1500, unmeasured);
    await running.window(() => measure(1500, unmeasured));

    const unloaded = { start: [] as number[], get: [] as number[] };
    const loaded = { start: [] as number[], get: [] as number[] };
    const sent = { flooder: [] as Record<string, number>[], madeUp: [] as Record<string, number>[] };
    statuses.clear();
    const pid = service.child.pid as number;
    const cpu = { unloaded: 0, loaded: 0 };
    const timedCpu = async (into: 'unloaded' | 'loaded', work: () => Promise<unknown>) => {
      const before = cpuMsOf(pid);
      await work();
      cpu[into] += cpuMsOf(pid) - before;
    };
    for (let window = 0; window < windows; window++) {
      await timedCpu('unloaded', () => measure(WINDOW_MS, unloaded));
      await timedCpu('loaded', async () => {
        const { sent: counts } = await running.window(() => measure(WINDOW_MS, loaded));
        sent.flooder.push(counts.flooder ?? {});
        sent.madeUp.push(counts.madeUp ?? {});
      });
    }

    const total = (rows: Record<string, number>[], name: string) =>
      rows.reduce((sum, row) => sum + (row[name] ?? 0), 0);
    const floodSeconds = total(sent.flooder, 'seconds');
    run = {
      figures: {
        getP99UnloadedMs: round(p99(unloaded.get)),
        getP99LoadedMs: round(p99(loaded.get)),
        getRatio: round(p99(loaded.get) / p99(unloaded.get)),
        startP99UnloadedMs: round(p99(unloaded.start)),
        startP99LoadedMs: round(p99(loaded.start)),
        startRatio: round(p99(loaded.start) / p99(unloaded.start)),
        getSamples: loaded.get.length + unloaded.get.length,
        startSamples: loaded.start.length + unloaded.start.length,
        flooderPerSecond: Math.round(total(sent.flooder, 'sent') / floodSeconds),
        flooderSent: total(sent.flooder, 'sent'),
        flooderRefused: total(sent.flooder, '429'),
        flooderServed: total(sent.flooder, '200'),
        // What its bucket allows over the flood's windows: a window's last requests are answered a moment after it
        // ends (a second each for that), and the bucket refills to its burst between windows.
        flooderMostServed:
          DEFAULT_READ_LIMITS.perSecond * (floodSeconds + windows) + DEFAULT_READ_LIMITS.burst * windows,
        madeUpPerSecond: Math.round(total(sent.madeUp, 'sent') / floodSeconds),
        madeUpSent: total(sent.madeUp, 'sent'),
        madeUp401: total(sent.madeUp, '401'),
        madeUpKeys: MADE_UP.keys.length,
        madeUpShapes: MADE_UP.shapes,
        floodErrors: total(sent.flooder, 'errors') + total(sent.madeUp, 'errors'),
        // The server's CPU over each condition, ms per second of it: what the floods cost it.
        serverCpuUnloadedMsPerS: Math.round(cpu.unloaded / ((windows * WINDOW_MS) / 1000)),
        serverCpuLoadedMsPerS: Math.round(cpu.loaded / ((windows * WINDOW_MS) / 1000)),
      },
      measuredStatuses: Object.fromEntries([...statuses].map(([status, count]) => [String(status), count])),
    };
  } finally {
    flood?.stop();
    exitCode = await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { ...run, exitCode };
};
