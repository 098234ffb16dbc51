// Owns reading one CDK context value: the spellings context arrives in (cdk.json's JSON, `-c key=value`'s strings)
// and the one error naming the key, what it must be and what it got.

export class SettingsError extends Error {}

export type ReadContext = (key: string) => unknown;

export const fail = (key: string, value: unknown, expected: string): never => {
  throw new SettingsError(`context "${key}" must be ${expected}, got ${JSON.stringify(value)}`);
};

/** Context from cdk.json arrives as JSON values, from `-c key=value` always as strings: accept both spellings. */
export const numberOf = (key: string, value: unknown, expected: string): number => {
  const parsed = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof parsed !== 'number' || !Number.isFinite(parsed)) return fail(key, value, expected);
  return parsed;
};

export const positiveNumber = (read: ReadContext, key: string, fallback: number): number => {
  const value = read(key);
  if (value === undefined) return fallback;
  const parsed = numberOf(key, value, 'a positive number');
  return parsed > 0 ? parsed : fail(key, value, 'a positive number');
};

export const integerIn = (
  read: ReadContext,
  key: string,
  fallback: number,
  min: number,
  max: number,
): number => {
  const value = read(key);
  if (value === undefined) return fallback;
  const expected = `an integer from ${min} to ${max}`;
  const parsed = numberOf(key, value, expected);
  return Number.isInteger(parsed) && parsed >= min && parsed <= max ? parsed : fail(key, value, expected);
};

/** An optional string setting that must match `pattern` (after trimming). */
export const optionalMatching =
  (key: string, pattern: Pick<RegExp, 'test'>, expected: string) =>
  (read: ReadContext): string | undefined => {
    const value = read(key);
    if (value === undefined) return undefined;
    return typeof value === 'string' && pattern.test(value.trim())
      ? value.trim()
      : fail(key, value, expected);
  };

/** Deliberately plain: one @, no spaces, a dot in the domain. SNS sends a confirmation mail that proves the rest. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
