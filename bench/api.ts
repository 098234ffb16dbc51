// Benchmark of the API on the local server (`npm start` as its own process; autocannon in this one): GET and start
// at 200 connections, and the handlers' own time apart from the HTTP adapter (the server's LOCAL_HANDLER_TIMING).
// `npx tsx bench/api.ts [--duration 15] [--connections 200] [--rate 2000]` prints the summary as JSON.
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon, { type Request, type Result } from 'autocannon';
import type { HandlerTimings } from '../shared/local/httpAdapter';
import { HANDLER_TIMING_PATH } from '../shared/local/httpAdapter';
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
  /** Concurrent connections (default 200). */
  connections?: number;
  /** Seconds of unmeasured GET traffic first, so JIT and connection set-up stay out of the figures (default 3). */
  warmupSec?: number;
  /** Checks started before the GET phase, read in turn (default 100). */
  seedChecks?: number;
  /** Test mailboxes per check (default 5). */
  mailboxes?: number;
  /** Also measure GET at this fixed overall rate (req/s) with the same connections; off when unset. */
  fixedRate?: number | undefined;
  /** Seconds of the one-connection phases that show a request's own cost without queueing (default 5; 0 skips). */
  serialSec?: number;
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
  /** Set only for the fixed-rate phase: the overall rate autocannon held (req/s). */
  overallRate?: number;
  requests: number;
  reqPerSec: number;
  /** Client-side latency of 2xx responses, ms (autocannon's histogram, 1 ms resolution). */
  latencyMs: LatencySummary;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** The handler call alone, inside the server (middy, auth, use case, DynamoDB round trips to dynalite), ms. */
  handlerMs: LatencySummary & { count: number };
}

export interface ApiBenchSummary {
  machine: { cpus: number; model: string; node: string };
  /** One connection, one request at a time: what a request costs when nothing waits in front of it. */
  serial?: { get: PhaseSummary; start: PhaseSummary };
  get: PhaseSummary;
  start: PhaseSummary;
  getFixedRate?: PhaseSummary;
  goals: { getP99Ms: number; getP99Met: boolean; getErrorsMet: boolean; startErrorsMet: boolean };
}

const GOAL_P99_MS = 20;

const latencyOf = (result: Result): LatencySummary => ({
  p50: result.latency.p50,
  p90: result.latency.p90,
  p99: result.latency.p99,
  max: result.latency.max,
  mean: round(result.latency.mean),
});

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

const phaseOf = (
  result: Result,
  connections: number,
  durationSec: number,
  handler: number[],
  overallRate?: number,
): PhaseSummary => ({
  connections,
  durationSec,
  ...(overallRate === undefined ? {} : { overallRate }),
  requests: result.requests.total,
  reqPerSec: round(result.requests.total / result.duration, 0),
  latencyMs: latencyOf(result),
  errors: result.errors,
  timeouts: result.timeouts,
  non2xx: result.non2xx,
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  handlerMs: summariseSamples(handler),
});

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

export const runApiBench = async (options: ApiBenchOptions = {}): Promise<ApiBenchSummary> => {
  const durationSec = options.durationSec ?? 15;
  const connections = options.connections ?? 200;
  const warmupSec = options.warmupSec ?? 3;
  const stub = await startStubMailboxes(options.mailboxes ?? 5);
  const server = await startLocalServer(stub.accounts, { LOCAL_HANDLER_TIMING: '1' });
  const headers = { authorization: `Bearer ${server.key}` };
  const cannon = (extra: Partial<Parameters<typeof autocannon>[0]>) =>
    autocannon({ url: server.baseUrl, connections, headers, timeout: 10, ...extra });
  try {
    const ids: string[] = [];
    for (let index = 0; index < (options.seedChecks ?? 100); index++) ids.push(await startOne(server));

    if (warmupSec > 0) await cannon({ duration: warmupSec, requests: rotatingGets(ids) });
    await takeHandlerTimings(server);

    let serial: ApiBenchSummary['serial'];
    const serialSec = options.serialSec ?? 5;
    if (serialSec > 0) {
      const serialGet = await cannon({ connections: 1, duration: serialSec, requests: rotatingGets(ids) });
      const getPhase = phaseOf(serialGet, 1, serialSec, (await takeHandlerTimings(server)).get);
      const serialStart = await cannon({
        connections: 1,
        duration: serialSec,
        requests: [{ method: 'POST', path: '/api/spam-check/start' }],
      });
      serial = {
        get: getPhase,
        start: phaseOf(serialStart, 1, serialSec, (await takeHandlerTimings(server)).start),
      };
    }

    const getResult = await cannon({ duration: durationSec, requests: rotatingGets(ids) });
    const get = phaseOf(getResult, connections, durationSec, (await takeHandlerTimings(server)).get);

    let getFixedRate: PhaseSummary | undefined;
    if (options.fixedRate !== undefined) {
      const fixed = await cannon({
        duration: durationSec,
        overallRate: options.fixedRate,
        requests: rotatingGets(ids),
      });
      getFixedRate = phaseOf(
        fixed,
        connections,
        durationSec,
        (await takeHandlerTimings(server)).get,
        options.fixedRate,
      );
    }

    const startResult = await cannon({
      duration: durationSec,
      requests: [{ method: 'POST', path: '/api/spam-check/start' }],
    });
    const start = phaseOf(startResult, connections, durationSec, (await takeHandlerTimings(server)).start);

    return {
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
      ...(serial ? { serial } : {}),
      get,
      start,
      ...(getFixedRate ? { getFixedRate } : {}),
      goals: {
        getP99Ms: GOAL_P99_MS,
        getP99Met: get.latencyMs.p99 <= GOAL_P99_MS,
        getErrorsMet: get.errors === 0 && get.non2xx === 0,
        startErrorsMet: start.errors === 0 && start.non2xx === 0,
      },
    };
  } finally {
    await server.stop();
    await stub.imap.close();
  }
};

runIfMain(import.meta.url, () => {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      rate: { type: 'string' },
    },
  });
  return runApiBench({
    ...(values.duration ? { durationSec: Number(values.duration) } : {}),
    ...(values.connections ? { connections: Number(values.connections) } : {}),
    ...(values.rate ? { fixedRate: Number(values.rate) } : {}),
  });
});
