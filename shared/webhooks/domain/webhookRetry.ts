// Owns when a webhook is tried again, as Standard Webhooks does it: every answer but a 2xx or 410 is retried, with
// exponential backoff and jitter, Retry-After honoured up to the window of a day over which a receiver is waited for.
import type { PostOutcome } from './webhook';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
/** Attempts go on until this long after the first, so a receiver down for a day still gets its delivery. */
export const RETRY_WINDOW_MS = 24 * HOUR;
const FIRST_DELAY_MS = 5 * SECOND;
const GROWTH = 3;
/** No backoff wait is longer (a Retry-After may ask for more): a receiver back after an outage is reached within this. */
const MAX_DELAY_MS = 6 * HOUR;
/**
 * Each wait is drawn uniformly from the upper quarter of its step, [¾, 1] of it: enough spread that receivers coming
 * back do not get every retry at once, and since ¾ × 3 > 1 a wait is never shorter than the one before.
 */
const JITTER_FLOOR = 0.75;
/** Attempts kept on record and shown in the report; the window ends long before. */
const MAX_ATTEMPTS = 30;

/**
 * What an attempt's outcome means for the delivery: a 2xx delivers it; 410 Gone says the endpoint is no more, so it
 * stops; any other answer (a 3xx, which is never followed since it could lead anywhere, a 4xx or a 5xx) and any
 * failure before an answer is tried again, as Standard Webhooks and Svix do.
 */
export const verdictOf = (outcome: PostOutcome): 'delivered' | 'retry' | 'gone' => {
  if ('error' in outcome) return 'retry';
  const { status } = outcome;
  if (status >= 200 && status < 300) return 'delivered';
  return status === 410 ? 'gone' : 'retry';
};

/**
 * The wait after the `attempt`-th failure (1-based): 5 s growing threefold up to 6 h, drawn from the step's upper
 * quarter (JITTER_FLOOR); never less than Retry-After, which nextAttemptAt bounds by the retry window.
 */
export const retryDelayOf = (attempt: number, random: () => number, retryAfterMs?: number): number => {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * GROWTH ** Math.max(0, attempt - 1));
  const jittered = Math.round(ceiling * (JITTER_FLOOR + (1 - JITTER_FLOOR) * random()));
  return Math.max(jittered, retryAfterMs ?? 0);
};

/** When the next attempt is due, or undefined when the delivery is over (delivered, refused, or out of time). */
export const nextAttemptAt = (
  outcome: PostOutcome,
  attempts: readonly { at: number }[],
  now: number,
  random: () => number,
): number | undefined => {
  if (verdictOf(outcome) !== 'retry' || attempts.length >= MAX_ATTEMPTS) return undefined;
  const first = attempts[0]?.at ?? now;
  if (now - first >= RETRY_WINDOW_MS) return undefined;
  const delay = retryDelayOf(attempts.length, random, 'status' in outcome ? outcome.retryAfterMs : undefined);
  // The last attempt lands at the window's end at the latest, never beyond it, whatever Retry-After asked.
  return Math.min(now + delay, first + RETRY_WINDOW_MS);
};

/** Retry-After as seconds or an HTTP date, in ms from `now`; undefined when absent or unreadable. */
export const retryAfterMsOf = (header: string | undefined, now: number): number | undefined => {
  if (header === undefined || header.length > 64) return undefined;
  const text = header.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * SECOND;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};
