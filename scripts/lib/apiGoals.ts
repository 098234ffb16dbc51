// Owns the API's goals in BENCHMARKS.md: GET under 200 connections and against a bare server, start under the same
// load, the handler's own time, cold start, and the developer loop (`npm run test:unit`).
import { BENCH, type Goal, get, ms, num } from './goalReading';

export const API_GOALS: Goal[] = [
  {
    section: 'api',
    // Its p99 was once a 20 ms goal: on 2 cores shared with the load generator it measured the machine (Little's law
    // needs 10,000 requests a second for it), so the latency goal is the ratio to a bare server below.
    goal: 'GET at 200 connections: 0 errors (p99 reported; the ratio to a bare server below is the latency goal)',
    command: `${BENCH} api`,
    read: (r) => ({
      measured: `p99 ${ms(num(r, 'get.latencyMs.p99'))}, p50 ${ms(num(r, 'get.latencyMs.p50'))}, ${num(r, 'get.reqPerSec')} req/s, ${num(r, 'get.requests')} requests, ${num(r, 'get.errors')} errors, ${num(r, 'get.non2xx')} non-2xx (${num(r, 'get.connections')} connections, ${num(r, 'get.durationSec')} s)`,
      pass: num(r, 'get.errors') === 0 && num(r, 'get.non2xx') === 0 && num(r, 'get.connections') >= 200,
    }),
  },
  {
    section: 'api',
    goal: 'GET p99 within 1.5 × a bare node:http server reading the same store, at 10 and 200 connections',
    command: `${BENCH} api`,
    read: (r) => {
      const rows =
        (get(r, 'bareRatio') as {
          connections: number;
          serviceP99Ms: number;
          bareP99Ms: number;
          ratio: number;
        }[]) ?? [];
      return {
        measured: rows.length
          ? rows
              .map(
                (row) =>
                  `${row.connections} connections: ${row.serviceP99Ms} ms vs bare ${row.bareP99Ms} ms (${row.ratio} ×)`,
              )
              .join('; ')
          : 'not measured in this run',
        pass:
          [10, 200].every((connections) => rows.some((row) => row.connections === connections)) &&
          rows.every((row) => row.ratio <= 1.5),
      };
    },
  },
  {
    section: 'api',
    goal: 'start under the same load (reported)',
    command: `${BENCH} api`,
    read: (r) => ({
      measured: `p99 ${ms(num(r, 'start.latencyMs.p99'))}, p50 ${ms(num(r, 'start.latencyMs.p50'))}, ${num(r, 'start.reqPerSec')} req/s, ${num(r, 'start.errors')} errors, ${num(r, 'start.non2xx')} non-2xx`,
      pass: undefined,
    }),
  },
  {
    section: 'api',
    goal: "The handler's own time, apart from the HTTP adapter (reported)",
    command: `${BENCH} api`,
    read: (r) => ({
      measured: `GET p50 ${num(r, 'get.handlerMs.p50')} ms, p99 ${num(r, 'get.handlerMs.p99')} ms; start p50 ${num(r, 'start.handlerMs.p50')} ms, p99 ${num(r, 'start.handlerMs.p99')} ms (at 200 connections)`,
      pass: undefined,
    }),
  },
  {
    section: 'coldStart',
    // Bundle sizes were goals once; what a cold start costs is its init time, so they are shown as information.
    goal: "API functions' init ≤ 150 ms (bundle sizes shown as information)",
    command: `${BENCH} cold-start`,
    read: (r) => {
      const functions =
        (get(r, 'functions') as { name: string; bundleKb: number; sinceStartMs: { median: number } }[]) ?? [];
      const api = functions.filter((f) => f.name !== 'scanner');
      const scanner = functions.find((f) => f.name === 'scanner');
      return {
        measured: functions
          .map(
            (f) =>
              `${f.name} ${f.bundleKb} KB${f.name === 'scanner' ? '' : ` / ${f.sinceStartMs.median} ms`}`,
          )
          .join(', '),
        pass: api.length === 3 && scanner !== undefined && api.every((f) => f.sinceStartMs.median <= 150),
      };
    },
  },
  {
    section: 'unitLoop',
    goal: '`npm run test:unit` under 60 s on this 2-core machine, as a non-root user with the mail stack down, every test passing',
    // Not through npm run bench, whose first step wants root for the mail stack this section does not use.
    command: 'npx tsx bench/run.ts --only unit-loop (as a non-root user, in a checkout it owns)',
    read: (r) => ({
      measured: `${num(r, 'wallSeconds')} s (CPU ${num(r, 'cpuSeconds')} s), ${num(r, 'files')} files, ${num(r, 'tests')} tests, ${num(r, 'failed')} failed; ${get(r, 'asRoot') === false ? 'non-root' : 'as root'}, mail stack ${get(r, 'mailStackUp') === false ? 'down' : 'up'}, ${num(r, 'cores')} cores`,
      pass:
        num(r, 'wallSeconds') < 60 &&
        num(r, 'failed') === 0 &&
        num(r, 'exitCode') === 0 &&
        get(r, 'asRoot') === false &&
        get(r, 'mailStackUp') === false &&
        num(r, 'cores') <= 2,
    }),
  },
];
