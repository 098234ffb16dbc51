// Owns the one form every CLI duration flag takes: a whole number and a unit, `500ms`, `30s`, `5m`, `12h`, `90d`
// (--expires also an ISO date); the bare numbers of 1.0 (`--wait 60`, `--poll-ms 200`) still read, with a warning.
import { InvalidInputError } from '../domain/errors';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

// Anchored, one digit run then one of five fixed words: nothing to backtrack over. Operator input, never sender text.
const DURATION = /^(\d{1,7})(ms|s|m|h|d)$/;
const BARE = /^\d{1,7}(\.\d{1,3})?$/;

/** A duration written `<n><unit>` in milliseconds, or undefined when `value` is not one. */
export const durationMs = (value: string): number | undefined => {
  const match = DURATION.exec(value.trim());
  if (!match?.[1] || !match[2]) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as Unit];
};

/** Where a deprecation notice goes: the CLIs pass stderr, tests a list. */
export type Warn = (text: string) => void;

export const warnOnStderr: Warn = (text) => {
  process.stderr.write(`${text}\n`);
};

/**
 * The flag's duration in milliseconds. `legacyUnit` is what a bare number meant in 1.0 (`--wait 60`: seconds): still
 * read so, with a warning naming the new form; anything else is refused naming the form.
 */
export const parseDurationFlag = (
  flag: string,
  value: string,
  legacyUnit: 's' | 'ms',
  warn: Warn,
): number => {
  const ms = durationMs(value);
  if (ms !== undefined) return ms;
  const trimmed = value.trim();
  if (BARE.test(trimmed)) {
    const legacy = Number(trimmed) * UNIT_MS[legacyUnit];
    warn(
      `warning: ${flag} ${trimmed} (a bare number of ${legacyUnit === 's' ? 'seconds' : 'milliseconds'}) is ` +
        `deprecated and goes in the next minor version: write ${flag} ${trimmed}${legacyUnit}`,
    );
    return legacy;
  }
  throw new InvalidInputError(`${flag} takes a duration such as 30s, 5m or 90d; got "${value}"`);
};

/** The absolute expiry (epoch ms) for `value`, relative to `now`: a duration (`90d`, `12h`) or an ISO date. */
export const parseExpiry = (value: string, now: number): number => {
  const relative = durationMs(value);
  if (relative !== undefined) return now + relative;
  const absolute = Date.parse(value);
  if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(absolute)) {
    if (absolute <= now) throw new InvalidInputError(`--expires ${value} is in the past`);
    return absolute;
  }
  throw new InvalidInputError(
    `--expires takes a duration like 90d, 12h or 30m, or an ISO date; got "${value}"`,
  );
};
