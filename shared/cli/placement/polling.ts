// Owns the check command's polling flags: --interval, --timeout and --poll (with --poll-ms, its 1.0 spelling), each a
// duration in the one form every CLI duration takes; a mistake is a UsageError naming the flag.
import { POLL_INTERVAL_MS } from '../../client';
import { durationMs, parseDurationFlag, type Warn } from '../duration';
import { UsageError } from './usageError';

/** The service times a check out after 5 minutes; wait a little longer than that by default. */
export const DEFAULT_TIMEOUT_S = 360;

/** A duration flag between `min` and `max` ms; a bare number (the 1.0 form) read in `legacyUnit`, with a warning. */
const duration = (flag: string, raw: string, range: [number, number], legacyUnit: 's' | 'ms', warn: Warn) => {
  const [min, max] = range;
  let ms: number;
  try {
    ms = parseDurationFlag(`--${flag}`, raw, legacyUnit, warn);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (ms < min || ms > max)
    throw new UsageError(`--${flag} takes a duration from ${min / 1000}s to ${max / 1000}s, not "${raw}"`);
  return ms;
};

/**
 * How the check CLI polls and how long it waits: --interval (5s to 15s, as the spec asks), --timeout, and the
 * testing aid --poll (any interval down to 10ms); --poll-ms N is the 1.0 spelling of --poll, read with a warning.
 */
/** The polling flags as parseArgs gives them. */
type ParsedValues = Partial<Record<'interval' | 'timeout' | 'poll' | 'poll-ms', string>>;

export const pollingOf = (values: ParsedValues, warn: Warn) => {
  let intervalMs: number = POLL_INTERVAL_MS.default;
  let minIntervalMs: number | undefined;
  if (values['poll-ms'] !== undefined)
    warn(
      `warning: --poll-ms is deprecated and goes in the next minor version: write --poll ${values['poll-ms']}ms`,
    );
  const poll = values.poll ?? values['poll-ms'];
  if (values['poll-ms'] !== undefined && values.poll !== undefined)
    throw new UsageError('--poll and --poll-ms cannot be used together');
  if (poll !== undefined && values.interval !== undefined)
    throw new UsageError(
      `--interval and --${values.poll === undefined ? 'poll-ms' : 'poll'} cannot be used together`,
    );
  if (values.interval !== undefined)
    intervalMs = duration(
      'interval',
      values.interval,
      [POLL_INTERVAL_MS.min, POLL_INTERVAL_MS.max],
      's',
      warn,
    );
  if (poll !== undefined) {
    // --poll-ms took a bare number of milliseconds; its warning above already names the new form.
    const raw = values.poll === undefined && durationMs(poll) === undefined ? `${poll}ms` : poll;
    intervalMs = duration('poll', raw, [10, POLL_INTERVAL_MS.max], 'ms', warn);
    minIntervalMs = intervalMs;
  }
  const timeoutMs = duration(
    'timeout',
    values.timeout ?? `${DEFAULT_TIMEOUT_S}s`,
    [1000, 3_600_000],
    's',
    warn,
  );
  return { intervalMs, minIntervalMs, timeoutMs };
};
