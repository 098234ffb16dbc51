// The report's summary and times from a check alone (shared/usecases/getReport.ts), as shared/domain/placementReport.ts
// describes them: timeout's completed_at, a check stored before providers were kept, and an empty rate.
import { describe, expect, it } from 'vitest';
import { type Check, newCheck } from '../../shared/domain/check';
import { ACTIVE_MS } from '../../shared/domain/limits';
import { reportOf } from '../../shared/usecases/getReport';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('reportOf', () => {
  it('puts a timed-out check complete at start + 5 minutes, with the pending accounts still pending', () => {
    const check: Check = {
      ...newCheck('abcdefghijklmnopqrst', 'default', ['a@mail.test', 'b@mail.test'], T0, {
        'a@mail.test': 'yahoo',
        'b@mail.test': 'yahoo',
      }),
      results: [
        { email: 'a@mail.test', category: 'spam' },
        { email: 'b@mail.test', category: 'pending' },
      ],
      received: 1,
      details: { 'a@mail.test': { folder: 'Bulk', recordedAt: T0 + 1000 } },
    };
    const report = reportOf(check, T0 + ACTIVE_MS + 1);
    expect(report.status).toBe('timeout');
    expect(report.completed_at).toBe(new Date(T0 + ACTIVE_MS).toISOString());
    expect(report.summary.inbox_rate).toEqual({ of_received: 0, of_total: 0 });
    expect(report.summary.by_provider.yahoo).toMatchObject({
      total: 2,
      received: 1,
      inbox: 0,
      spam: 1,
      other: 0,
    });
    expect(report.summary.by_provider.yahoo?.rates.spam).toMatchObject({ count: 1, of: 1, rate: 1, high: 1 });
    expect(report.summary.by_category).toMatchObject({ spam: 1, pending: 1, primary: 0 });
  });

  it('names the provider unknown for a check stored before providers were kept, and keeps nothing pending timed', () => {
    const report = reportOf(newCheck('abcdefghijklmnopqrst', 'default', ['a@mail.test'], T0), T0);
    expect(report).toMatchObject({ status: 'pending', completed_at: null });
    expect(report.summary.inbox_rate).toEqual({ of_received: null, of_total: 0 });
    expect(report.accounts).toEqual([
      expect.objectContaining({ provider: 'unknown', delivered_at: null, seconds_to_deliver: null }),
    ]);
  });

  it('shows a suspect seed’s copy but leaves it out of every rate, and puts the control beside its provider', () => {
    const emails = ['a@mail.test', 'b@mail.test', 'c@mail.test'];
    const check: Check = {
      ...newCheck('abcdefghijklmnopqrst', 'default', emails, T0, {
        'a@mail.test': 'gmail',
        'b@mail.test': 'gmail',
        'c@mail.test': 'gmail',
      }),
      results: [
        { email: 'a@mail.test', category: 'primary' },
        { email: 'b@mail.test', category: 'primary' },
        { email: 'c@mail.test', category: 'spam' },
      ],
      received: 3,
    };
    const control = {
      check_id: 'ctl',
      at: new Date(T0).toISOString(),
      total: 3,
      inbox: 3,
      spam: 0,
      missing: 0,
      other: 0,
      astray: 0,
      unreachable: 0,
      provider_astray: false,
    };
    const report = reportOf(check, T0 + 1000, {
      suspect: new Set(['c@mail.test']),
      controls: { gmail: control },
    });
    expect(report.accounts.map((account) => [account.email, account.suspect])).toEqual([
      ['a@mail.test', false],
      ['b@mail.test', false],
      ['c@mail.test', true],
    ]);
    const gmail = report.summary.by_provider.gmail;
    // The counts stay whole; only the rates leave the suspect copy out.
    expect(gmail).toMatchObject({ total: 3, received: 3, inbox: 2, spam: 1, control });
    expect(gmail?.rates.inbox).toMatchObject({ count: 2, of: 2, rate: 1, high: 1 });
    expect(gmail?.rates.spam).toMatchObject({ count: 0, of: 2, rate: 0, low: 0 });
    expect(report.summary.rates.inbox).toMatchObject({ count: 2, of: 2 });
    expect(report.summary.inbox_rate).toEqual({ of_received: 2 / 3, of_total: 2 / 3 });
    // Without seed history the fields stay absent, so the report reads as before.
    const plain = reportOf(check, T0 + 1000);
    expect(plain.accounts[2]).not.toHaveProperty('suspect');
    expect(plain.summary.by_provider.gmail).not.toHaveProperty('control');
    expect(plain.summary.rates.inbox).toMatchObject({ count: 2, of: 3 });
  });
});
