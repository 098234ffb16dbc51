// A check that is complete before its audit is claimed (its one copy recorded, the detached audit not yet started)
// reads as pending, not as "not taken": the report waits for an unclaimed audit as long as for a claimed one, from
// the check's first recorded copy.
import { describe, expect, it } from 'vitest';
import { AUDIT_ABANDONED_MS, reportAuditOf } from '../../shared/audit/usecases/auditRecord';
import { type Check, newCheck } from '../../shared/domain/check';
import { ACTIVE_MS } from '../../shared/domain/limits';

const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const RECORDED = T0 + 800;

/** A one-seed check whose copy was recorded at RECORDED: complete from then on. */
const complete = (): Check => ({
  ...newCheck('0d6f5c1e-3b1a-4f2e-9a7c-1b2c3d4e5f60', 'default', ['a@mail.test'], T0, {
    'a@mail.test': 'imap',
  }),
  results: [{ email: 'a@mail.test', category: 'primary' }],
  received: 1,
  details: { 'a@mail.test': { folder: 'INBOX', recordedAt: RECORDED } },
});

describe("the report's audit of a complete check whose audit is not yet claimed", () => {
  it('is pending right after the copy is recorded, and until a claim would count as cut', () => {
    expect(reportAuditOf(complete(), RECORDED + 50, undefined)).toEqual({ state: 'pending' });
    expect(reportAuditOf(complete(), RECORDED + AUDIT_ABANDONED_MS, undefined)).toEqual({ state: 'pending' });
  });

  it('is unavailable, not taken, once that wait is over', () => {
    expect(reportAuditOf(complete(), RECORDED + AUDIT_ABANDONED_MS + 1, undefined)).toEqual({
      state: 'unavailable',
      why: 'the audit was not taken (it is off on this deployment, or no scanner took it)',
    });
  });

  it('a check that timed out with no copy is unavailable at once', () => {
    const none = newCheck('0d6f5c1e-3b1a-4f2e-9a7c-1b2c3d4e5f61', 'default', ['a@mail.test'], T0);
    expect(reportAuditOf(none, T0 + ACTIVE_MS + 1, undefined)).toEqual({
      state: 'unavailable',
      why: 'no copy arrived before the check ended',
    });
  });
});
