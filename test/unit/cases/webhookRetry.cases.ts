// Hand-computed cases for webhook retries (shared/webhooks/domain/webhookRetry.ts), as Standard Webhooks and docs/webhooks.md
// state them. Each was worked out by hand from the stated rule, not by running the code:
//   step(n) = min(6 h, 5 s × 3^(n-1));  wait = round(step × (0.75 + 0.25 × r));  wait = max(wait, Retry-After);
//   next = min(now + wait, first + 24 h).
import type { PostOutcome } from '../../../shared/webhooks/domain/webhook';

const SECOND = 1000;
const HOUR = 3600 * SECOND;

/** What one answer means: only a 2xx delivers and only 410 stops; every other answer is retried. */
export const VERDICTS: [PostOutcome, 'delivered' | 'retry' | 'gone'][] = [
  [{ status: 200 }, 'delivered'],
  [{ status: 204 }, 'delivered'],
  [{ status: 299 }, 'delivered'],
  [{ status: 410 }, 'gone'],
  // The README's own example receiver answers 401 on clock skew: retried, not the end.
  [{ status: 401 }, 'retry'],
  [{ status: 400 }, 'retry'],
  [{ status: 403 }, 'retry'],
  [{ status: 404 }, 'retry'],
  [{ status: 413 }, 'retry'],
  // A redirect is never followed; it is a failed attempt, retried.
  [{ status: 301 }, 'retry'],
  [{ status: 302 }, 'retry'],
  [{ status: 307 }, 'retry'],
  [{ status: 308 }, 'retry'],
  [{ status: 100 }, 'retry'],
  [{ status: 408 }, 'retry'],
  [{ status: 429 }, 'retry'],
  [{ status: 500 }, 'retry'],
  [{ status: 503 }, 'retry'],
  [{ error: 'no answer within 10 s' }, 'retry'],
];

/** [attempt, r, Retry-After ms or undefined, wait ms]. */
export const DELAYS: [number, number, number | undefined, number][] = [
  [1, 0, undefined, 3750], // 5 s × 0.75
  [1, 1, undefined, 5000],
  [2, 0.5, undefined, 13_125], // 15 s × 0.875
  [3, 0, undefined, 33_750], // 45 s × 0.75
  [5, 1, undefined, 405_000], // 5 s × 81
  [8, 1, undefined, 10_935_000], // 5 s × 2187 = 3 h 2 min 15 s, under the cap
  [9, 1, undefined, 6 * HOUR], // 5 s × 6561 = 9.1 h, capped at 6 h
  [9, 0, undefined, 4.5 * HOUR], // the cap's upper quarter starts at 4.5 h
  [1, 0, 120 * SECOND, 120 * SECOND], // Retry-After longer than the wait: honoured
  [3, 1, 10 * SECOND, 45 * SECOND], // shorter: the backoff's own wait stands
  [1, 0, 12 * HOUR, 12 * HOUR], // past the 6 h backoff cap: still honoured (the window bounds it, not 6 h)
];

/** [attempts made at (ms), now, outcome, next attempt at or undefined]: the window is 24 h from the first. */
export const NEXT: [number[], number, PostOutcome, number | undefined][] = [
  [[0], 0, { status: 503 }, 3750],
  [[0], 0, { status: 401 }, 3750],
  [[0], 0, { status: 302 }, 3750],
  [[0], 0, { status: 410 }, undefined],
  [[0], 0, { status: 200 }, undefined],
  [[0], 0, { status: 503, retryAfterMs: 12 * HOUR }, 12 * HOUR],
  // Retry-After of 30 h: honoured up to the window, so the last attempt is at its end, 24 h after the first.
  [[0], 0, { status: 503, retryAfterMs: 30 * HOUR }, 24 * HOUR],
  [[0, 20 * HOUR], 20 * HOUR, { status: 429, retryAfterMs: 8 * HOUR }, 24 * HOUR],
  [[0, 24 * HOUR], 24 * HOUR, { status: 503 }, undefined],
];

/** The docs' own wording of the rule, built from the figures above: docs/webhooks.md must say each. */
export const DOC_PHRASES = [
  'up to 6 hours',
  'between three quarters of its step and the whole step',
  '3.75 to 5 s, then 11.25 to 15 s',
  '`410 Gone` ends it as `gone`',
  'up to the retry window',
];
