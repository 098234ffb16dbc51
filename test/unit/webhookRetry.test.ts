// When a webhook is tried again, from the hand-computed table in cases/webhookRetry.cases.ts: every answer but a
// 2xx or 410 is retried (a redirect too, never followed), the backoff's jitter is the upper quarter the docs state,
// Retry-After is honoured up to the retry window, and a receiver that stays down is tried for a day.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  nextAttemptAt,
  RETRY_WINDOW_MS,
  retryAfterMsOf,
  retryDelayOf,
  verdictOf,
} from '../../shared/webhooks/domain/webhookRetry';
import { DELAYS, DOC_PHRASES, NEXT, VERDICTS } from './cases/webhookRetry.cases';

describe('what an answer means', () => {
  it.each(VERDICTS)('%j: %s', (outcome, verdict) => expect(verdictOf(outcome)).toBe(verdict));
});

describe('backoff', () => {
  it.each(DELAYS)('attempt %i, r %f, Retry-After %s: waits %i ms', (attempt, r, retryAfter, wait) =>
    expect(retryDelayOf(attempt, () => r, retryAfter)).toBe(wait),
  );

  it.each(NEXT)('attempts at %j, now %i, %j: next at %s', (at, now, outcome, next) =>
    expect(
      nextAttemptAt(
        outcome,
        at.map((time) => ({ at: time })),
        now,
        () => 0,
      ),
    ).toBe(next),
  );

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(retryAfterMsOf('120', 0)).toBe(120_000);
    expect(retryAfterMsOf(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(retryAfterMsOf('soon', 0)).toBeUndefined();
  });

  it('a receiver that is always down is tried for 24 hours, the last attempt at the end, then it ends', () => {
    const attempts: { at: number }[] = [];
    let now = 0;
    for (let guard = 0; guard < 100; guard++) {
      attempts.push({ at: now });
      const next = nextAttemptAt({ status: 401 }, attempts, now, () => 0.5);
      if (next === undefined) break;
      expect(next).toBeGreaterThan(now);
      now = next;
    }
    expect(attempts.at(-1)?.at).toBe(RETRY_WINDOW_MS);
    expect(attempts.length).toBeLessThan(30);
  });

  it('docs/webhooks.md states the same rule and cap', () => {
    const docs = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8').replace(
      /\s+/g,
      ' ',
    );
    for (const phrase of DOC_PHRASES) expect(docs).toContain(phrase);
    // The figures the docs quote are the code's own.
    expect([1, 2].map((attempt) => [0, 1].map((r) => retryDelayOf(attempt, () => r) / 1000))).toEqual([
      [3.75, 5],
      [11.25, 15],
    ]);
  });
});
