// When a webhook is tried again: which answers end it, backoff with jitter that grows, Retry-After honoured, and
// a receiver that stays down is tried for at least a day.
import { describe, expect, it } from 'vitest';
import type { PostOutcome } from '../../shared/domain/webhook';
import {
  MAX_DELAY_MS,
  nextAttemptAt,
  RETRY_WINDOW_MS,
  retryAfterMsOf,
  retryDelayOf,
  verdictOf,
} from '../../shared/domain/webhookRetry';

describe('what an answer means', () => {
  it.each<[PostOutcome, string]>([
    [{ status: 200 }, 'delivered'],
    [{ status: 204 }, 'delivered'],
    [{ status: 500 }, 'retry'],
    [{ status: 503 }, 'retry'],
    [{ status: 429 }, 'retry'],
    [{ status: 408 }, 'retry'],
    [{ error: 'no answer within 10 s' }, 'retry'],
    [{ error: 'connection failed: ECONNREFUSED' }, 'retry'],
    [{ status: 400 }, 'give-up'],
    [{ status: 404 }, 'give-up'],
    [{ status: 410 }, 'give-up'],
    [{ status: 302 }, 'give-up'],
  ])('%j: %s', (outcome, verdict) => expect(verdictOf(outcome)).toBe(verdict));
});

describe('backoff', () => {
  it('grows, with jitter within the upper quarter of each step, capped', () => {
    const low = [1, 2, 3, 4, 5].map((attempt) => retryDelayOf(attempt, () => 0));
    const high = [1, 2, 3, 4, 5].map((attempt) => retryDelayOf(attempt, () => 1));
    expect(low).toEqual([3750, 11_250, 33_750, 101_250, 303_750]);
    expect(high).toEqual([5000, 15_000, 45_000, 135_000, 405_000]);
    expect(retryDelayOf(40, () => 1)).toBe(MAX_DELAY_MS);
  });

  it('never sooner than Retry-After', () => {
    expect(retryDelayOf(1, () => 0, 120_000)).toBe(120_000);
    expect(retryAfterMsOf('120', 0)).toBe(120_000);
    expect(retryAfterMsOf(new Date(60_000).toUTCString(), 0)).toBe(60_000);
    expect(retryAfterMsOf('soon', 0)).toBeUndefined();
    const at = nextAttemptAt({ status: 429, retryAfterMs: 600_000 }, [{ at: 0 }], 0, () => 0);
    expect(at).toBe(600_000);
  });

  it('a receiver that is always down is tried for at least 24 hours, then the delivery ends', () => {
    const attempts: { at: number }[] = [];
    let now = 0;
    for (let guard = 0; guard < 100; guard++) {
      attempts.push({ at: now });
      const next = nextAttemptAt({ status: 503 }, attempts, now, () => 0.5);
      if (next === undefined) break;
      expect(next).toBeGreaterThan(now);
      now = next;
    }
    const last = attempts.at(-1)?.at ?? 0;
    expect(last).toBeGreaterThanOrEqual(RETRY_WINDOW_MS);
    expect(attempts.length).toBeLessThan(30);
    expect(nextAttemptAt({ status: 503 }, attempts, last, () => 0.5)).toBeUndefined();
  });

  it('a refusal or a success has no next attempt', () => {
    expect(nextAttemptAt({ status: 200 }, [{ at: 0 }], 0, () => 0.5)).toBeUndefined();
    expect(nextAttemptAt({ status: 404 }, [{ at: 0 }], 0, () => 0.5)).toBeUndefined();
  });
});
