// No client can starve another under `npm start` with its default limits (scripts/lib/fairLoad.ts runs it): while one
// key floods GET at 10 times its read limit and made-up keys flood, the flooder is held to its bucket with 429s,
// every made-up key gets 401, and a second key is never refused. The p99 ratios it prints are the fairness goal of
// BENCHMARKS.md (npm run bench -- --only fairness), where a ratio measured on a shared machine belongs.
import { describe, expect, it } from 'vitest';
import { FLOOD_FACTOR, MADE_UP_PER_SECOND, runFairLoad } from '../../scripts/lib/fairLoad';
import { DEFAULT_READ_LIMITS } from '../../shared/domain/readLimits';

describe('npm start: fair limits under load', () => {
  it(`holds one key flooding GET at ${FLOOD_FACTOR}x its limit to its bucket, refuses made-up keys, never the other key`, async () => {
    const { figures, measuredStatuses, exitCode } = await runFairLoad();
    console.log(JSON.stringify(figures));

    // The measured key was never refused, and the floods really ran at their rates.
    expect(Object.keys(measuredStatuses)).toEqual(['200']);
    expect(figures.getSamples).toBeGreaterThan(100);
    expect(figures.flooderPerSecond).toBeGreaterThanOrEqual(
      0.9 * FLOOD_FACTOR * DEFAULT_READ_LIMITS.perSecond,
    );
    expect(figures.madeUpPerSecond).toBeGreaterThanOrEqual(0.9 * MADE_UP_PER_SECOND);
    expect(figures.floodErrors).toBe(0);
    // The flooder got about its limit served, and the rest refused: 429s, not a queue.
    expect(figures.flooderRefused).toBeGreaterThan(0.8 * figures.flooderSent);
    expect(figures.flooderServed).toBeLessThanOrEqual(figures.flooderMostServed);
    expect(figures.madeUp401).toBe(figures.madeUpSent);
    expect(exitCode).toBe(0);
  }, 90_000);
});
