// Owns how often a scheduled calibration may run, the same on AWS (`-c calibrationEvery`) and under npm start.

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
/** A control check lasts up to 5 minutes: runs closer together than this would overlap. */
const MIN_MS = 15 * 60_000;
const MAX_MS = 7 * 86_400_000;

export const CALIBRATION_EVERY_RULE = 'a duration from 15m to 7d such as 6h, 90m or 1d';

/** `6h`, `90m`, `1d` as milliseconds; undefined for anything else or outside 15m to 7d. */
export const parseCalibrationEvery = (value: unknown): number | undefined => {
  // Anchored, one digit run and one letter: nothing here can backtrack.
  const match = typeof value === 'string' ? /^(\d{1,5})([mhd])$/.exec(value.trim()) : null;
  const ms = match ? Number(match[1]) * (UNITS[match[2] ?? ''] ?? Number.NaN) : Number.NaN;
  return ms >= MIN_MS && ms <= MAX_MS ? ms : undefined;
};
