// A seed's record from the hand-computed table in cases/calibration.cases.ts: what a control copy says (inbox, astray,
// unreachable), when a provider is flagged instead of its seeds, when a seed is suspect, when its record is too old
// to tell; and the report's reading set beside the control: message side or seed first, in the CLI's words.
import { describe, expect, it } from 'vitest';
import { lookFirst } from '../../shared/calibration/domain/controlReading';
import { controlCountsOf, isProviderAstray, runIntervalOf } from '../../shared/calibration/domain/controlRun';
import {
  isSuspect,
  outcomeOf,
  retentionMs,
  type SeedCalibration,
  seedRecordOf,
  seedStateOf,
} from '../../shared/calibration/domain/seedHealth';
import { controlLines } from '../../shared/cli/placement/controlLines';
import type { Category } from '../../shared/domain/categories';
import { sampleReport } from '../support/placementReport';
import {
  FLAGGED,
  INTERVALS,
  OUTCOMES,
  RETENTION,
  STALENESS,
  type Step,
  SUSPECT,
} from './cases/calibration.cases';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 1);

const entry = (category: Category, index: number, extra: Partial<SeedCalibration> = {}): SeedCalibration => ({
  email: 'seed@mail.test',
  scope: 'default',
  provider: 'outlook',
  checkId: `c${index}`,
  at: T0 + index * HOUR,
  placement:
    category === 'pending'
      ? 'missing'
      : category === 'primary' || category === 'updates'
        ? 'inbox'
        : category === 'spam'
          ? 'spam'
          : 'other',
  category,
  deliveredAt: category === 'pending' ? undefined : T0 + index * HOUR + 1000,
  detectedAt: category === 'pending' ? undefined : T0 + index * HOUR + 2000,
  loginFailures: 0,
  ...extra,
});

/** A history from the table's steps, oldest first, one calibration an hour. */
const history = (steps: readonly Step[]): SeedCalibration[] =>
  steps.map((step, index) => {
    const category = step.replace(/[!x]$/, '') as Category;
    return entry(category, index, {
      providerAstray: step.endsWith('!'),
      loginFailures: step.endsWith('x') ? 3 : 0,
    });
  });

describe('what a control copy says about its seed', () => {
  it.each(OUTCOMES)('%s with %i login failures: %s', (category, loginFailures, outcome) =>
    expect(outcomeOf({ category, loginFailures })).toBe(outcome),
  );
});

describe('a provider flagged in one calibration', () => {
  it.each(FLAGGED)('%j: flagged %s', (seeds, flagged) => {
    const entries = seeds.map(([category, loginFailures], index) =>
      entry(category, index, { loginFailures }),
    );
    const counts = controlCountsOf(entries).outlook;
    expect(counts && isProviderAstray(counts)).toBe(flagged);
  });

  it('counts placements and outcomes per provider', () => {
    const entries = [
      entry('primary', 0),
      entry('trash', 1),
      entry('pending', 2, { loginFailures: 2 }),
      entry('spam', 3, { provider: 'gmail' }),
    ];
    expect(controlCountsOf(entries)).toEqual({
      outlook: { total: 3, inbox: 1, spam: 0, other: 1, missing: 1, astray: 1, unreachable: 1 },
      gmail: { total: 1, inbox: 0, spam: 1, other: 0, missing: 0, astray: 1, unreachable: 0 },
    });
  });
});

describe('seed health', () => {
  it.each(SUSPECT)('%j (oldest first) is suspect: %s', (steps, suspect) => {
    expect(isSuspect(history(steps))).toBe(suspect);
    // The store's order does not matter: only the latest three by time count.
    expect(isSuspect(history(steps).reverse())).toBe(suspect);
  });

  it.each(STALENESS)('latest calibration %i ms old, interval %s: %s', (age, everyMs, state) => {
    const latest = entry('primary', 0, { everyMs });
    expect(seedStateOf([latest], latest.at + age)).toBe(state);
  });

  it('a stale suspect is unknown, not suspect; no calibration at all is unknown', () => {
    const worn = history(['spam', 'spam']).map((one) => ({ ...one, everyMs: HOUR }));
    expect(seedStateOf(worn, T0 + 2 * HOUR)).toBe('suspect');
    expect(seedStateOf(worn, T0 + 5 * HOUR)).toBe('unknown');
    expect(seedStateOf([], T0)).toBe('unknown');
  });

  it.each(INTERVALS)('a run at %i after %s, schedule %s: interval %i', (at, previous, scheduled, interval) =>
    expect(runIntervalOf(at, previous, scheduled)).toBe(interval),
  );

  it.each(RETENTION)('interval %s: kept %i ms', (everyMs, kept) => expect(retentionMs(everyMs)).toBe(kept));

  it('keeps the last delivery and the last login a found copy proves, over the whole history', () => {
    const record = seedRecordOf('seed@mail.test', history(['primary', 'spam', 'pending']), T0 + 3 * HOUR);
    expect(record).toMatchObject({
      state: 'suspect',
      suspect: true,
      lastDeliveryAt: T0 + HOUR + 1000,
      lastLoginAt: T0 + HOUR + 2000,
    });
    expect(record.history.map((one) => one.checkId)).toEqual(['c2', 'c1', 'c0']);
  });
});

const control = (inbox: number, spam: number, missing = 0, other = 0, unreachable = 0) => {
  const total = inbox + spam + missing + other;
  const astray = total - inbox - unreachable;
  return {
    check_id: 'ctl',
    at: '2026-11-25T08:00:00.000Z',
    total,
    inbox,
    spam,
    missing,
    other,
    astray,
    unreachable,
    provider_astray: total - unreachable > 0 && 2 * astray > total - unreachable,
  };
};

describe('what to look at first', () => {
  it('the control landed in the inbox where this message went to spam: the message side first', () => {
    const report = sampleReport();
    for (const summary of Object.values(report.summary.by_provider)) summary.control = control(1, 0);
    expect(lookFirst(report)).toEqual([
      expect.objectContaining({ provider: 'imap', order: ['message', 'seed'], because: 'control-inbox' }),
    ]);
    const lines = controlLines(report);
    expect(lines).toContain('  IMAP: control inbox 1 of 1; this message spam 1 of 1');
    expect(lines).toContain('  Gmail: control inbox 1 of 1; this message inbox 1 of 2');
    expect(lines.find((line) => line.startsWith('  1. '))).toMatch(
      /^ {2}1\. IMAP: the message and its sending/,
    );
  });

  it('the control went to spam at one seed of three there too: the seed first', () => {
    const report = sampleReport();
    (report.summary.by_provider.imap as { control?: unknown }).control = control(2, 1);
    expect(lookFirst(report)[0]).toMatchObject({ order: ['seed', 'message'], because: 'control-astray' });
    expect(controlLines(report).join('\n')).toMatch(
      /1\. IMAP: the seeds there and the path to them, then .*: the control missed the inbox at 1 of 3 seeds there too\./,
    );
  });

  it('a control in Trash is astray: never "landed in the inbox" (the issue\'s 0 of 3, and 2 of 3)', () => {
    for (const [inbox, trash, astray] of [
      [0, 3, 'provider-astray'],
      [2, 1, 'control-astray'],
    ] as const) {
      const report = sampleReport();
      (report.summary.by_provider.imap as { control?: unknown }).control = control(inbox, 0, 0, trash);
      expect(lookFirst(report)[0]).toMatchObject({ because: astray });
      const text = controlLines(report).join('\n');
      expect(text).not.toContain('landed in the inbox');
      expect(text).toContain(`IMAP: control inbox ${inbox} of 3 (other ${trash})`);
    }
  });

  it('most seeds lost the control: the provider or the sender is flagged, the message side first, seeds kept', () => {
    const report = sampleReport();
    (report.summary.by_provider.imap as { control?: unknown }).control = control(0, 3);
    expect(lookFirst(report)[0]).toMatchObject({ order: ['message', 'seed'], because: 'provider-astray' });
    const text = controlLines(report).join('\n');
    expect(text).toContain(
      'IMAP: control inbox 0 of 3 (spam 3); most seeds lost it: provider or control sender flagged',
    );
    expect(text).toContain(
      'the provider (or the control sender) is flagged, not the seeds, and they stay counted',
    );
  });

  it('a saved report from before outcomes: a control not in the inbox is read as astray', () => {
    const report = sampleReport();
    const older = { check_id: 'ctl', at: report.started_at, total: 3, inbox: 0, spam: 0, missing: 0 };
    (report.summary.by_provider.imap as { control?: unknown }).control = older;
    expect(lookFirst(report)[0]).toMatchObject({ because: 'control-astray', control: { astray: 3 } });
    expect(controlLines(report).join('\n')).not.toContain('landed in the inbox');
  });

  it('a control missing where logins failed is unreadable, not astray', () => {
    const report = sampleReport();
    (report.summary.by_provider.imap as { control?: unknown }).control = control(0, 0, 2, 0, 2);
    expect(lookFirst(report)[0]).toMatchObject({ because: 'control-unreachable' });
    expect(controlLines(report).join('\n')).toContain(
      "the control could not be read there (login failures): its seeds' health is unknown",
    );
  });

  it("says the marks are of the check's own start, or that they were too old to tell", () => {
    const report = sampleReport();
    for (const summary of Object.values(report.summary.by_provider)) summary.control = control(1, 0);
    const calibration = { check_id: 'ctl', at: '2026-11-25T08:00:00.000Z' };
    report.seed_marks = { state: 'current', taken_at: report.started_at, calibration };
    expect(controlLines(report)).toContain(
      "seed marks as of this check's start (calibration ctl of 2026-11-25T08:00:00.000Z); later calibrations do not change them",
    );
    const stale = sampleReport();
    stale.seed_marks = { state: 'stale', taken_at: stale.started_at, calibration };
    expect(controlLines(stale)).toEqual([
      'seed health unknown: the latest calibration (calibration ctl of 2026-11-25T08:00:00.000Z) was too old when this check started',
    ]);
  });

  it('every copy in spam came from a suspect seed: the seed first, and the seed is named', () => {
    const report = sampleReport();
    for (const account of report.accounts) account.suspect = account.category === 'spam';
    for (const summary of Object.values(report.summary.by_provider)) summary.control = control(1, 0);
    expect(lookFirst(report)[0]).toMatchObject({ order: ['seed', 'message'], because: 'suspect-seeds' });
    expect(controlLines(report).join('\n')).toContain('suspect seeds (shown, left out of the rates):');
  });

  it('prints nothing until a calibration ran in the scope', () => {
    expect(controlLines(sampleReport())).toEqual([]);
    const uncalibrated = sampleReport();
    for (const summary of Object.values(uncalibrated.summary.by_provider)) summary.control = null;
    expect(controlLines(uncalibrated)).toEqual([]);
    expect(lookFirst(sampleReport())[0]).toMatchObject({ order: ['message'], because: 'no-control' });
  });
});
