// Every CLI duration flag takes one form, a number and a unit (500ms, 30s, 5m, 90d): the check CLI's --interval,
// --timeout and --poll, the admin's --wait and --expires; the 1.0 bare numbers (--wait 60, --poll-ms 200) are still
// read as they were, each with a warning naming the new form, and anything else is refused naming the form.
import { describe, expect, it } from 'vitest';
import { durationMs, parseDurationFlag, parseExpiry } from '../../shared/cli/duration';
import { parseCheckOptions, UsageError } from '../../shared/cli/placement/options';
import { InvalidInputError } from '../../shared/domain/errors';

const settings = { serviceUrl: undefined, apiKey: 'k', smtpPassword: undefined };

/** The check CLI's options for `flags`, with the warnings it gave. */
const checkOptions = (...flags: string[]) => {
  const warnings: string[] = [];
  const options = parseCheckOptions(['--no-send', ...flags], settings, (text) => warnings.push(text));
  return { options, warnings };
};

describe('the duration form', () => {
  it('reads a number and a unit', () => {
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs('30s')).toBe(30_000);
    expect(durationMs('5m')).toBe(300_000);
    expect(durationMs('12h')).toBe(43_200_000);
    expect(durationMs('90d')).toBe(90 * 86_400_000);
    for (const other of ['60', '5 m', '1.5s', 's', '5w', '-5s', '', `${'9'.repeat(8)}s`])
      expect(durationMs(other), other).toBeUndefined();
  });

  it('reads a bare number in the flag’s 1.0 unit, with a warning naming the new form', () => {
    const warnings: string[] = [];
    expect(parseDurationFlag('--wait', '60', 's', (text) => warnings.push(text))).toBe(60_000);
    expect(warnings).toEqual([expect.stringMatching(/--wait 60 .*deprecated.*--wait 60s/)]);
    expect(parseDurationFlag('--wait', '2m', 's', (text) => warnings.push(text))).toBe(120_000);
    expect(warnings).toHaveLength(1);
    expect(() => parseDurationFlag('--wait', 'soon', 's', () => {})).toThrow(InvalidInputError);
  });

  it('is the form of --expires too, beside an ISO date', () => {
    expect(parseExpiry('90d', 0)).toBe(90 * 86_400_000);
    expect(parseExpiry('30s', 0)).toBe(30_000);
    expect(() => parseExpiry('90', 0)).toThrow(InvalidInputError);
  });
});

describe('the check CLI’s duration flags', () => {
  it('takes --interval and --timeout as durations, without a warning', () => {
    const { options, warnings } = checkOptions('--interval', '10s', '--timeout', '6m');
    expect(options).toMatchObject({ intervalMs: 10_000, minIntervalMs: undefined, timeoutMs: 360_000 });
    expect(warnings).toEqual([]);
  });

  it('still reads the 1.0 bare seconds of --interval and --timeout, warning for each', () => {
    const { options, warnings } = checkOptions('--interval', '10', '--timeout', '90');
    expect(options).toMatchObject({ intervalMs: 10_000, timeoutMs: 90_000 });
    expect(warnings).toEqual([
      expect.stringContaining('--interval 10s'),
      expect.stringContaining('--timeout 90s'),
    ]);
  });

  it('takes --poll below the spec’s 5s as a testing aid, and --poll-ms N as its 1.0 spelling with a warning', () => {
    expect(checkOptions('--poll', '50ms')).toMatchObject({
      options: { intervalMs: 50, minIntervalMs: 50 },
      warnings: [],
    });
    const legacy = checkOptions('--poll-ms', '50');
    expect(legacy.options).toMatchObject({ intervalMs: 50, minIntervalMs: 50 });
    expect(legacy.warnings).toEqual([expect.stringContaining('write --poll 50ms')]);
  });

  it('refuses what is out of range or not a duration, naming the form', () => {
    expect(() => checkOptions('--interval', '1s')).toThrow(/--interval takes a duration from 5s to 15s/);
    expect(() => checkOptions('--timeout', 'soon')).toThrow(UsageError);
    expect(() => checkOptions('--timeout', 'soon')).toThrow(/30s, 5m or 90d/);
    expect(() => checkOptions('--poll', '50ms', '--interval', '5s')).toThrow(UsageError);
    expect(() => checkOptions('--poll', '50ms', '--poll-ms', '50')).toThrow(UsageError);
  });
});
