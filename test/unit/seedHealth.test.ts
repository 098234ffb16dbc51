// A seed's record: suspect after its control went to spam or missing in 2 of its latest 3 calibrations (in whatever
// order the history comes), and the report's reading set beside the control: message side or seed first.
import { describe, expect, it } from 'vitest';
import { controlLines } from '../../shared/cli/placement/controlLines';
import { lookFirst } from '../../shared/domain/controlReading';
import {
  controlCountsOf,
  isSuspect,
  type SeedCalibration,
  type SeedPlacement,
  seedRecordOf,
} from '../../shared/domain/seedHealth';
import { sampleReport } from '../support/placementReport';

const HOUR = 3_600_000;
/** A history from oldest to newest placement, one calibration an hour. */
const history = (...placements: SeedPlacement[]): SeedCalibration[] =>
  placements.map((placement, index) => ({
    email: 'seed@mail.test',
    scope: 'default',
    provider: 'outlook',
    checkId: `c${index}`,
    at: index * HOUR,
    placement,
    category:
      placement === 'missing'
        ? 'pending'
        : placement === 'inbox'
          ? 'primary'
          : placement === 'other'
            ? 'promotions'
            : 'spam',
    deliveredAt: placement === 'missing' ? undefined : index * HOUR + 1000,
    detectedAt: placement === 'missing' ? undefined : index * HOUR + 2000,
    loginFailures: 0,
  }));

describe('seed health', () => {
  it.each([
    [[], false],
    [['spam'], false],
    [['spam', 'inbox'], false],
    [['inbox', 'spam'], false],
    [['spam', 'spam'], true],
    [['spam', 'missing'], true],
    [['inbox', 'spam', 'inbox', 'missing'], true],
    [['spam', 'inbox', 'inbox', 'missing'], false],
    [['inbox', 'spam', 'missing'], true],
    [['spam', 'missing', 'inbox', 'inbox', 'other'], false],
    [['inbox', 'inbox', 'spam', 'inbox', 'spam'], true],
    [['missing', 'missing', 'inbox', 'inbox', 'inbox'], false],
  ] as [SeedPlacement[], boolean][])('%j (oldest first) is suspect: %s', (placements, suspect) => {
    expect(isSuspect(history(...placements))).toBe(suspect);
    // The store's order does not matter: only the latest three by time count.
    expect(isSuspect(history(...placements).reverse())).toBe(suspect);
  });

  it('keeps the last delivery and the last login a found copy proves, over the whole history', () => {
    const record = seedRecordOf('seed@mail.test', history('inbox', 'spam', 'missing'));
    expect(record).toMatchObject({ suspect: true, lastDeliveryAt: HOUR + 1000, lastLoginAt: HOUR + 2000 });
    expect(record.history.map((entry) => entry.checkId)).toEqual(['c2', 'c1', 'c0']);
  });

  it("counts one calibration's placements per provider", () => {
    const entries = [
      ...history('inbox', 'spam'),
      { ...history('missing')[0], provider: 'gmail' },
    ] as SeedCalibration[];
    expect(controlCountsOf(entries)).toEqual({
      outlook: { total: 2, inbox: 1, spam: 1, other: 0, missing: 0 },
      gmail: { total: 1, inbox: 0, spam: 0, other: 0, missing: 1 },
    });
  });
});

const control = (inbox: number, spam: number, missing = 0) => ({
  check_id: 'ctl',
  at: '2026-11-25T08:00:00.000Z',
  total: inbox + spam + missing,
  inbox,
  spam,
  missing,
});

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

  it('the control went to spam there too: the seed first', () => {
    const report = sampleReport();
    (report.summary.by_provider.imap as { control?: unknown }).control = control(0, 1);
    expect(lookFirst(report)[0]).toMatchObject({ order: ['seed', 'message'], because: 'control-astray' });
    expect(controlLines(report).join('\n')).toMatch(/1\. IMAP: the seeds there and the path to them, then/);
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
