// Owns the load, property, fairness, linear-parsing and kill-restart goals (RELIABILITY.md and BENCHMARKS.md).
import { BENCH, type Goal, get, ms, num } from './goalReading';

/** A refused request's CPU with the screen before the handler pipeline and without; runs from before it have none. */
const refusalCpu = (r: Record<string, unknown>): string => {
  const us = (path: string) => num(r, `refusalCpu.microseconds.${path}`);
  if (!Number.isFinite(us('screened.madeUp'))) return '';
  return `; CPU per refused request, screened before the handler pipeline vs not (same run): made-up key ${us('screened.madeUp')} vs ${us('unscreened.madeUp')} µs (${num(r, 'refusalCpu.ratio.madeUp')} ×), key past its read limit ${us('screened.overLimit')} vs ${us('unscreened.overLimit')} µs (${num(r, 'refusalCpu.ratio.overLimit')} ×)`;
};

export const RELIABILITY_GOALS: Goal[] = [
  {
    section: 'load',
    goal: '200 clients for 60 s mixing start and get: 0 errors, 0 lost checks',
    command: `${BENCH} load`,
    read: (r) => ({
      measured: `${num(r, 'requests')} requests (${num(r, 'starts')} starts, ${num(r, 'gets')} gets), p50 ${ms(num(r, 'latencyMs.p50'))}, p99 ${ms(num(r, 'latencyMs.p99'))}, ${num(r, 'errors')} errors, ${num(r, 'non2xx')} non-2xx, ${num(r, 'lost')} lost of ${num(r, 'checksStarted')}`,
      pass:
        num(r, 'errors') === 0 &&
        num(r, 'non2xx') === 0 &&
        num(r, 'lost') === 0 &&
        num(r, 'checksStarted') > 0 &&
        num(r, 'durationSec') >= 60 &&
        num(r, 'connections') >= 200,
    }),
  },
  {
    section: 'properties',
    goal: "Header parsing and tag matching: ≥ 100,000 generated messages, no crash, no misattribution; time per message reported (its worst case, once a 5 ms goal here, is the linear parsing row's)",
    command: `${BENCH} properties`,
    read: (r) => ({
      measured: `${num(r, 'cases')} cases, ${num(r, 'failures')} failures, max ${num(r, 'perMessage.maxMs')} ms, p99 ${num(r, 'perMessage.p99Ms')} ms`,
      pass: num(r, 'cases') >= 100_000 && num(r, 'failures') === 0,
    }),
  },
  {
    section: 'fairness',
    goal: "Fairness under npm start: while one key floods GET at 10 × its read limit and 2,000 made-up keys of every shape flood, a second key's start and GET p99 ≤ 1.5 × the same run's unloaded p99",
    command: `${BENCH} fairness`,
    read: (r) => ({
      measured: `GET p99 ${num(r, 'getP99UnloadedMs')} → ${num(r, 'getP99LoadedMs')} ms (${num(r, 'getRatio')} ×), start p99 ${num(r, 'startP99UnloadedMs')} → ${num(r, 'startP99LoadedMs')} ms (${num(r, 'startRatio')} ×); flooder ${num(r, 'flooderPerSecond')}/s, ${num(r, 'flooderRefused')} refused with 429, ${num(r, 'flooderServed')} served; made-up keys (${num(r, 'madeUpKeys')} distinct, one character to 512, base64, ipk_) ${num(r, 'madeUpPerSecond')}/s, ${num(r, 'madeUp401')} × 401; server CPU ${num(r, 'serverCpuUnloadedMsPerS')} → ${num(r, 'serverCpuLoadedMsPerS')} ms/s${refusalCpu(r)}`,
      pass:
        num(r, 'getRatio') <= 1.5 &&
        num(r, 'startRatio') <= 1.5 &&
        num(r, 'madeUpKeys') >= 2000 &&
        num(r, 'madeUp401') === num(r, 'madeUpSent'),
    }),
    missed:
      'a start writes several items, each write waiting behind the floods in the one event loop, where a GET reads one; the goal stands',
  },
  {
    section: 'linearParsing',
    goal: 'Linear parsing: every function reading sender or client text (header fields, HTML parts, whole sources, DNS records, Authorization, path), on hostile input of 1 MB (runs of blanks, colons, `=?`, nested comments, one line, short lines or fields, `&`, `<`, `"`, unterminated comments and CDATA): worst call ≤ 50 ms, and ≤ 2 × per doubling (+ 1 ms of timing noise) from 125 KB',
    command: `${BENCH} linear-parsing`,
    read: (r) => {
      const functions =
        (get(r, 'functions') as {
          name: string;
          reachedLargest: boolean;
          worstMs: number;
          worstPayload: string;
          lastStepPerDoubling: number;
          steep?: string[];
        }[]) ?? [];
      const worst = Math.max(...functions.map((fn) => fn.worstMs));
      const steepest = Math.max(...functions.map((fn) => fn.lastStepPerDoubling));
      return {
        measured: `worst ${worst} ms, steepest ${steepest} × per doubling (1 MB over 125 KB; CPU time of one call at ${num(r, 'largestBytes')} bytes; per function, its worst payload and steepest growth per doubling: ${functions.map((fn) => `${fn.name} ${fn.reachedLargest ? `${fn.worstMs} ms (${fn.worstPayload}), ${fn.lastStepPerDoubling} ×` : 'cut short: far over 2 × per doubling'}`).join('; ')})`,
        pass:
          functions.length > 0 &&
          functions.every((fn) => fn.reachedLargest && fn.worstMs <= 50 && fn.steep?.length === 0) &&
          num(r, 'largestBytes') >= 1_000_000,
      };
    },
  },
  {
    section: 'killRestart',
    goal: 'Scanner killed with SIGKILL mid-sweep and restarted: nothing lost, nothing doubled, every check complete',
    command: `${BENCH} kill-restart`,
    read: (r) => ({
      measured: `${num(r, 'kills')} kills (${num(r, 'killsMidSweep')} mid-sweep), ${num(r, 'completeChecks')}/${num(r, 'checks')} checks complete, ${num(r, 'results')} results of ${num(r, 'checks') * num(r, 'accounts')}, ${num(r, 'doubled')} doubled, ${num(r, 'inconsistentReads')} inconsistent of ${num(r, 'reads')} reads, settled ${ms(num(r, 'settleMs'))} after the last kill`,
      pass:
        num(r, 'completeChecks') === num(r, 'checks') &&
        num(r, 'results') === num(r, 'checks') * num(r, 'accounts') &&
        num(r, 'doubled') === 0 &&
        num(r, 'inconsistentReads') === 0 &&
        num(r, 'killsMidSweep') > 0,
    }),
  },
];
