// Owns the limits on starting checks: how many starts a key may make per minute, how many of its checks (and of its
// scope's, over all of the scope's keys) may be in flight (neither complete nor timed out) at once, and the
// Retry-After each refusal carries.
import type { Check } from './check';
import { ACTIVE_MS } from './limits';

export interface KeyLimits {
  /** Starts per key per calendar minute (UTC); 0 means no limit. */
  startsPerMinute: number;
  /** Checks per key that are neither complete nor timed out; 0 means no limit. */
  maxInFlight: number;
  /** The same over every key of a scope together; 0 or absent means no ceiling. */
  maxInFlightPerScope?: number;
}

export const DEFAULT_KEY_LIMITS = {
  startsPerMinute: 60,
  maxInFlight: 100,
  maxInFlightPerScope: 1000,
} as const satisfies Required<KeyLimits>;

/** Whose in-flight checks a set counts: one key's, or one scope's over all of its keys. */
export type InFlightHolder = { keyId: string } | { scope: string };

/**
 * The largest in-flight cap: the key's in-flight checks live in one item (a map of check id to start time), and
 * this many entries stay well inside DynamoDB's 400 KB item limit. Use 0 for no cap at all.
 */
export const MAX_IN_FLIGHT_CAP = 10_000;

const MINUTE_MS = 60_000;

/**
 * How often a key at its cap has its checks read again to find the completed ones: refusals in between cost one
 * write and one read, however many checks the key has in flight. A completed check frees its slot within this long.
 */
export const RECHECK_MS = 5000;

/** How long a reserved slot counts without its check existing yet: the time start takes to write the check. */
export const RESERVATION_GRACE_MS = 30_000;

export const rateWindowOf = (now: number): { start: number; end: number } => {
  const start = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  return { start, end: start + MINUTE_MS };
};

/** Whole seconds until `at`, at least 1, as the Retry-After header wants them. */
export const retryAfterSeconds = (at: number, now: number): number =>
  Math.max(1, Math.ceil((at - now) / 1000));

export interface InFlightEntry {
  checkId: string;
  startedAt: number;
}

export type CheckProgress = Pick<Check, 'received'> & { total: number };

/**
 * Whether a check still counts against its key: until it is complete or timed out. A reserved slot whose check
 * does not exist counts only for a short grace, while start is still writing it.
 */
export const isInFlight = (
  entry: InFlightEntry,
  progress: CheckProgress | undefined,
  now: number,
): boolean => {
  if (now - entry.startedAt > ACTIVE_MS) return false;
  if (progress) return progress.received < progress.total;
  return now - entry.startedAt < RESERVATION_GRACE_MS;
};

/** When the first of these checks times out for sure, freeing its slot (one may complete sooner). */
export const firstSlotFreeAt = (inFlight: readonly InFlightEntry[], now: number): number =>
  inFlight.length === 0 ? now : Math.min(...inFlight.map((entry) => entry.startedAt + ACTIVE_MS)) + 1;
