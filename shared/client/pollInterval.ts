// Owns how often a client polls GET: the spec asks for every 5 to 15 seconds, so that is the default and the clamp;
// only an explicit floor (meant for tests against a local service) may go below it.

/**
 * The spec's polling interval: 5 s by default, clamped to 5–15 s.
 *
 * @example
 * ```ts
 * await client.waitForCheck(checkId, { intervalMs: POLL_INTERVAL_MS.max });
 * ```
 */
export const POLL_INTERVAL_MS = { default: 5000, min: 5000, max: 15_000 } as const;

/**
 * How often to poll: a wanted interval, and (for tests on a local service only) a lower floor.
 *
 * @example
 * ```ts
 * const every10s: PollIntervalOptions = { intervalMs: 10_000 };
 * ```
 */
export interface PollIntervalOptions {
  /** Wanted interval; clamped to 5–15 s (default 5 s). */
  intervalMs?: number;
  /**
   * Lowers the 5 s floor. A testing aid for local services only: the spec asks real clients to poll at 5–15 s.
   */
  minIntervalMs?: number;
}

/**
 * The interval waitForCheck polls at for these options, clamped to the spec's 5–15 s unless the floor is lowered.
 *
 * @example
 * ```ts
 * pollIntervalOf({ intervalMs: 60_000 }); // 15000
 * pollIntervalOf({ intervalMs: 100, minIntervalMs: 0 }); // 100: a local test service only
 * ```
 */
export const pollIntervalOf = ({ intervalMs, minIntervalMs }: PollIntervalOptions = {}): number => {
  const wanted = intervalMs ?? POLL_INTERVAL_MS.default;
  const floor = minIntervalMs ?? POLL_INTERVAL_MS.min;
  if (!Number.isFinite(wanted) || wanted < 0) throw new RangeError(`intervalMs must be >= 0, not ${wanted}`);
  if (!Number.isFinite(floor) || floor < 0) throw new RangeError(`minIntervalMs must be >= 0, not ${floor}`);
  return Math.min(POLL_INTERVAL_MS.max, Math.max(floor, wanted));
};
