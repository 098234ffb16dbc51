// Benchmark of the API on the local server (`npm start` as its own process; autocannon in this one): GET and start
// at 200 connections, and the handlers' own time apart from the HTTP adapter (the server's LOCAL_HANDLER_TIMING).
// `npx tsx bench/api.ts [--duration 15] [--connections 200] [--steps 10,50]` prints the summary as JSON.
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon, { type Request, type Result } from 'autocannon';
import { spawnEntry } from '../scripts/lib/process';
import type { HandlerTimings } from '../shared/local/httpAdapter';
import { HANDLER_TIMING_PATH } from '../shared/local/httpAdapter';
import { summariseRun } from './autocannonSummary';
import {
  type LocalServer,
  percentile,
  round,
  runIfMain,
  startLocalServer,
  startStubMailboxes,
} from './localServer';

export interface ApiBenchOptions {
  /** Seconds of each measured phase (default 15). */
  durationSec?: number;
  /** Concurrent connections of the goal's phases (default 200). */
  connections?: number;
  /** Seconds of unmeasured GET traffic first, so JIT and connection set-up stay out of the figures (default 3). */
  warmupSec?: number;
  /** Checks started before the GET phases, read in turn (default 100). */
  seedChecks?: number;
  /** Test mailboxes per check (default 5). */
  mailboxes?: number;
  /**
   * GET also at these connection counts (default 10 and 50), to show where queueing sets in. A fixed request rate is
   * not offered: autocannon's `overallRate` releases each connection's share at the same instant every second (so
   * 200 connections send bursts of 200), which measures the burst, not a steady rate.
   */
  connectionSteps?: number[];
  /** Seconds of the one-connection phases that show a request's own cost without queueing (default 5; 0 skips). */
  serialSec?: number;
  /** GET phases at these connection counts are each followed by the bare baseline's (default 10 and 200). */
  ratioConnections?: number[];
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface PhaseSummary {
  connections: number;
  durationSec: number;
  requests: number;
  reqPerSec: number;
  /** Client-side latency of 2xx responses, ms (autocannon's histogram, 1 ms resolution). */
  latencyMs: LatencySummary;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /**
   * The handler call alone, timed inside the server around `handler(event, context)`: middy, auth, the use case and
   * its DynamoDB round trips, and any wait for the event loop on the way. The rest of the latency is the HTTP server,
   * the adapter and the client.
   */
  handlerMs: LatencySummary & { count: number };
}

export interface ApiBenchSummary {
  machine: { cpus: number; model: string; node: string };
  /** One connection, one request at a time: what a request costs when nothing waits in front of it. */
  serial?: { get: PhaseSummary; start: PhaseSummary };
  get: PhaseSummary;
  start: PhaseSummary;
  getSteps: PhaseSummary[];
  /**
   * GET p99 of the service next to a bare `node:http` server reading the same store (bench/bareServer.ts), each
   * measured right after the other at the same connection count, in this run.
   */
  bareRatio: {
    connections: number;
    serviceP99Ms: number;
    bareP99Ms: number;
    ratio: number;
    bare: PhaseSummary;
  }[];
  /** No absolute p99 goal: on 2 cores it measures the machine; the ratio to the bare server is the latency goal. */
  goals: { getErrorsMet: boolean; startErrorsMet: boolean };
}

/** bench/bareServer.ts over the local server's store, in a process of its own. */
const startBareServer = async (server: LocalServer) => {
  const started = await spawnEntry(
    join(import.meta.dirname, 'bareServer.ts'),
    { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', BENCH_DATA_DIR: server.dataDir },
    /bare server listening on (http:\/\/\S+)/,
  );
  return { url: started.match[1] as string, stop: () => started.stop() };
};

export const summariseSamples = (samples: number[]): LatencySummary & { count: number } => {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? Number.NaN),
    mean: round(sorted.length === 0 ? Number.NaN : sum / sorted.length),
  };
};

/** The handler timings the server recorded since the last read, which also clears them. */
export const takeHandlerTimings = async (server: LocalServer): Promise<HandlerTimings> =>
  (await (await fetch(`${server.baseUrl}${HANDLER_TIMING_PATH}`)).json()) as HandlerTimings;

export const startOne = async (server: LocalServer): Promise<string> => {
  const response = await fetch(`${server.baseUrl}/api/spam-check/start`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.key}` },
  });
  if (response.status !== 200) throw new Error(`start answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { check_id: string }).check_id;
};

/** GETs of the given checks in turn, shared by all connections. */
const rotatingGets = (ids: readonly string[]): Request[] => {
  let next = 0;
  return [
    {
      method: 'GET',
      setupRequest: (request) => ({ ...request, path: `/api/spam-check/${ids[next++ % ids.length]}` }),
    },
  ];
};

const START: Request[] = [{ method: 'POST', path: '/api/spam-check/start' }];

/** Requests still in flight when autocannon stops finish within this; their timings are then taken too. */
const SETTLE_MS = 500;

/**
 * Runs one phase and pairs autocannon's figures with the handler calls that began during it; with `url`, against
 * that server instead (the bare baseline, which has no handler timings).
 */
const measure = async (
  server: LocalServer,
  target: 'get' | 'start',
  requests: Request[],
  connections: number,
  durationSec: number,
  url?: string,
): Promise<PhaseSummary> => {
  const began = Date.now();
  const result: Result = await autocannon({
    url: url ?? server.baseUrl,
    connections,
    duration: durationSec,
    timeout: 10,
    headers: { authorization: `Bearer ${server.key}` },
    requests,
  });
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  // Calls that began before this phase (the tail of the previous one) are not this phase's.
  const handler = url
    ? []
    : (await takeHandlerTimings(server))[target].filter(([at]) => at >= began).map(([, ms]) => ms);
  return {
    connections,
    durationSec,
    ...summariseRun(result),
    handlerMs: summariseSamples(handler),
  };
};

export const runApiBench = async (options: ApiBenchOptions = {}): Promise<ApiBenchSummary> => {
  const durationSec = options.durationSec ?? 15;
  const connections = options.connections ?? 200;
  const warmupSec = options.warmupSec ?? 3;
  const serialSec = options.serialSec ?? 5;
  const stub = await startStubMailboxes(options.mailboxes ?? 5);
  const server = await startLocalServer(stub.accounts, { LOCAL_HANDLER_TIMING: '1' });
  let bare: Awaited<ReturnType<typeof startBareServer>> | undefined;
  try {
    const ids: string[] = [];
    for (let index = 0; index < (options.seedChecks ?? 100); index++) ids.push(await startOne(server));
    bare = await startBareServer(server);
    if (warmupSec > 0) {
      await measure(server, 'get', rotatingGets(ids), connections, warmupSec);
      await measure(server, 'get', rotatingGets(ids), connections, warmupSec, bare.url);
    }
    const bareAt = new Map<number, PhaseSummary>();
    const bareAfter = async (phase: PhaseSummary) => {
      if (bare && (options.ratioConnections ?? [10, 200]).includes(phase.connections))
        bareAt.set(
          phase.connections,
          await measure(server, 'get', rotatingGets(ids), phase.connections, durationSec, bare.url),
        );
      return phase;
    };

    const serial =
      serialSec > 0
        ? {
            get: await measure(server, 'get', rotatingGets(ids), 1, serialSec),
            start: await measure(server, 'start', START, 1, serialSec),
          }
        : undefined;
    const getSteps: PhaseSummary[] = [];
    for (const step of options.connectionSteps ?? [10, 50])
      getSteps.push(await bareAfter(await measure(server, 'get', rotatingGets(ids), step, durationSec)));
    const get = await bareAfter(await measure(server, 'get', rotatingGets(ids), connections, durationSec));
    await bare.stop();
    bare = undefined;
    const bareRatio = [...getSteps, get].flatMap((phase) => {
      const baseline = bareAt.get(phase.connections);
      if (!baseline) return [];
      return [
        {
          connections: phase.connections,
          serviceP99Ms: phase.latencyMs.p99,
          bareP99Ms: baseline.latencyMs.p99,
          ratio: round(phase.latencyMs.p99 / Math.max(baseline.latencyMs.p99, 1)),
          bare: baseline,
        },
      ];
    });
    // Last: every start adds an active check that the in-process scanner then reads on each sweep.
    const start = await measure(server, 'start', START, connections, durationSec);

    return {
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
      ...(serial ? { serial } : {}),
      get,
      start,
      getSteps,
      bareRatio,
      goals: {
        getErrorsMet: get.errors === 0 && get.non2xx === 0,
        startErrorsMet: start.errors === 0 && start.non2xx === 0,
      },
    };
  } catch (error) {
    process.stderr.write(`the local server printed:\n${server.output()}\n`);
    throw error;
  } finally {
    await bare?.stop();
    await server.stop();
    await stub.imap.close();
  }
};

runIfMain(import.meta.url, () => {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      steps: { type: 'string' },
    },
  });
  return runApiBench({
    ...(values.duration ? { durationSec: Number(values.duration) } : {}),
    ...(values.connections ? { connections: Number(values.connections) } : {}),
    ...(values.steps ? { connectionSteps: values.steps.split(',').map(Number) } : {}),
  });
});
