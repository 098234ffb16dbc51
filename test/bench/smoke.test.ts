// Smoke-sized runs of the API, load, cold start and wake-up benchmarks, so `npm run bench` cannot rot: each must run
// end to end and report every field with no errors and nothing lost. Timing goals are the benchmarks' business.
import { describe, expect, it } from 'vitest';
import { runApiBench } from '../../bench/api';
import { runColdStartBench } from '../../bench/coldStart';
import { runLinearParsingBench } from '../../bench/linearParsing';
import { runLoadBench } from '../../bench/load';
import { runPropertyBench } from '../../bench/properties';
import { runWakeUpBench } from '../../bench/wakeUp';
import { GOALS, goalRows } from '../../scripts/lib/goals';

/** What each benchmark returned, for the goals table at the end. */
const results: Record<string, unknown> = {};

const phaseShape = {
  requests: expect.any(Number),
  reqPerSec: expect.any(Number),
  latencyMs: {
    p50: expect.any(Number),
    p90: expect.any(Number),
    p99: expect.any(Number),
    max: expect.any(Number),
    mean: expect.any(Number),
  },
  handlerMs: expect.objectContaining({
    count: expect.any(Number),
    p50: expect.any(Number),
    p99: expect.any(Number),
  }),
};

describe('the benchmarks, smoke-sized', () => {
  it('runs the API benchmark: GET and start, one connection and several, with the handler time', async () => {
    const summary = await runApiBench({
      durationSec: 1,
      connections: 4,
      warmupSec: 0,
      seedChecks: 3,
      serialSec: 1,
      connectionSteps: [2],
      ratioConnections: [2, 4],
    });
    results.api = summary;
    const phases = [
      summary.get,
      summary.start,
      summary.serial?.get,
      summary.serial?.start,
      ...summary.getSteps,
    ];
    expect(phases).toHaveLength(5);
    for (const phase of phases) {
      expect(phase).toMatchObject(phaseShape);
      expect(phase?.requests).toBeGreaterThan(0);
      expect(phase?.errors).toBe(0);
      expect(phase?.non2xx).toBe(0);
      // Every request the client saw was timed inside the server too (give or take those cut off at the end).
      expect(phase?.handlerMs.count).toBeGreaterThanOrEqual(phase?.requests ?? Number.NaN);
    }
    expect(summary.goals).toMatchObject({ getErrorsMet: true, startErrorsMet: true });
    // The bare node:http baseline ran right after each GET phase named, over the same checks, without errors.
    expect(summary.bareRatio.map((row) => row.connections)).toEqual([2, 4]);
    for (const row of summary.bareRatio) {
      expect(row.bare.requests).toBeGreaterThan(0);
      expect(row.bare).toMatchObject({ errors: 0, non2xx: 0 });
      expect(row.ratio).toBe(Math.round((row.serviceP99Ms / Math.max(row.bareP99Ms, 1)) * 100) / 100);
    }
  }, 60_000);

  it('runs the load test: starts and polls mixed, nothing lost', async () => {
    const summary = await runLoadBench({ durationSec: 2, connections: 4, getsPerStart: 2 });
    results.load = summary;
    expect(summary.starts).toBeGreaterThan(0);
    expect(summary.gets).toBeGreaterThan(0);
    expect(summary.requests).toBe(summary.starts + summary.gets);
    expect(summary.checksStarted).toBe(summary.starts);
    expect(summary).toMatchObject({ errors: 0, non2xx: 0, duplicateIds: 0, lost: 0 });
    expect(summary.latencyMs).toEqual({
      p50: expect.any(Number),
      p90: expect.any(Number),
      p99: expect.any(Number),
      max: expect.any(Number),
      mean: expect.any(Number),
    });
    expect(summary.goals).toEqual({ errorsMet: true, lostMet: true });
  }, 60_000);

  it('runs the cold start benchmark over the four functions', async () => {
    const summary = await runColdStartBench({ runs: 1 });
    results.coldStart = summary;
    expect(summary.functions.map((fn) => fn.name)).toEqual(['start', 'get', 'fallback', 'scanner']);
    for (const fn of summary.functions) {
      expect(fn.bundleKb).toBeGreaterThan(1);
      expect(fn.sinceStartMs.median).toBeGreaterThan(0);
      expect(fn.importMs.median).toBeGreaterThan(0);
      expect(fn.importMs.median).toBeLessThanOrEqual(fn.sinceStartMs.median);
    }
    expect(summary.emptyModule.sinceStartMs).toBeGreaterThan(0);
  }, 60_000);

  it('runs the property benchmark: generated messages, none misattributed', async () => {
    const summary = await runPropertyBench({ cases: 300, seed: 7 });
    results.properties = summary;
    expect(summary).toMatchObject({ cases: 300, failures: 0 });
  }, 60_000);

  it('runs the linear parsing benchmark: every function on every payload, up to the size asked', async () => {
    const summary = await runLinearParsingBench({ largest: 125_000, reps: 1, minMs: 1, attempts: 1 });
    results.linearParsing = summary;
    expect(summary.largestBytes).toBe(125_000);
    expect(summary.functions.map((fn) => fn.name)).toContain('tagsInBlock (To and Cc)');
    for (const fn of summary.functions) {
      expect(fn.reachedLargest, fn.name).toBe(true);
      expect(Number.isFinite(fn.worstMs) && Number.isFinite(fn.lastStepPerDoubling), fn.name).toBe(true);
    }
  }, 120_000);

  it('runs the wake-up benchmark: stream records one at a time, none starting a loop while one runs', async () => {
    const summary = await runWakeUpBench({ records: 20 });
    results.wakeUp = summary;
    expect(summary).toMatchObject({
      records: 20,
      loopsStarted: 0,
      loopStillRunning: true,
      dynamoRequestsPerRecord: 2,
    });
    expect(summary.handlerMs.p99).toBeGreaterThan(0);
    expect(summary.recordsPerSec).toBeGreaterThan(0);
  }, 60_000);

  it('the goals table of BENCHMARKS.md reads a figure for every goal of these benchmarks', () => {
    const sections = new Set(Object.keys(results));
    expect([...sections].sort()).toEqual([
      'api',
      'coldStart',
      'linearParsing',
      'load',
      'properties',
      'wakeUp',
    ]);
    const rows = goalRows(results).filter((_, index) => sections.has(GOALS[index]?.section ?? ''));
    expect(rows).toHaveLength(9);
    for (const row of rows) expect(row.measured, row.goal).not.toMatch(/NaN|undefined|n\/a|not run/);
  });
});
