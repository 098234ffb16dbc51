// Owns when a webhook is tried again: which answers end it, exponential backoff with jitter, Retry-After honoured,
// and the window of at least a day over which a receiver that is down is waited for.
import type { PostOutcome } from './webhook';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
/** Attempts go on until this long after the first, so a receiver down for a day still gets its delivery. */
export const RETRY_WINDOW_MS = 24 * HOUR;
const FIRST_DELAY_MS = 5 * SECOND;
const GROWTH = 3;
/** No single wait is longer: a receiver back after an outage is reached within this. */
export const MAX_DELAY_MS = 6 * HOUR;
/** Attempts kept on record and shown in the report; the window ends long before. */
const MAX_ATTEMPTS = 30;

/** What an attempt's outcome means for the delivery. */
export const verdictOf = (outcome: PostOutcome): 'delivered' | 'retry' | 'give-up' => {
  if ('error' in outcome) return 'retry';
  const { status } = outcome;
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  // Other 4xx say the request itself is unwanted; a redirect is never followed (it could lead anywhere).
  return 'give-up';
};

/**
 * The wait after the `attempt`-th failure (1-based): 5 s growing threefold up to 6 h, each wait drawn from its
 * upper three quarters so that receivers coming back do not get every retry at once; never less than Retry-After.
 */
export const retryDelayOf = (attempt: number, random: () => number, retryAfterMs?: number): number => {
  const ceiling = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * GROWTH ** Math.max(0, attempt - 1));
  const jittered = Math.round(ceiling * (0.75 + 0.25 * random()));
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_DELAY_MS));
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
  // The last attempt lands at the window's end at the latest, never beyond it.
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
