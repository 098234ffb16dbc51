// The sender audit wired into npm start's composition on the real loopback mail stack and the loopback Knot server:
// a message delivered to two seeds gets one audit, read from one bounded fetch of one copy's source, stored beside
// the check and shown in the report (openapi.yaml checks every response); a source past the cap is read up to it;
// AUDIT=off takes none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../scripts/lib/poll';
import { MAX_SOURCE_BYTES } from '../../shared/audit/contentFacts';
import { CLEAN_MESSAGE, newsletterHtml, sendAuditMessage } from '../support/auditMessages';
import { type AuditService, startAuditService } from '../support/auditService';

const SEEDS = ['inbox@mail.test', 'junk@mail.test'];
let service: AuditService;

/** Sends `message` to every address of a new check and waits until each copy is recorded. */
const deliveredCheck = async (message = CLEAN_MESSAGE) => {
  const { check_id: checkId, accounts } = await service.startCheck();
  for (const to of accounts) await sendAuditMessage(message, { to, subject: `audit ${checkId}` });
  const report = await pollUntil(
    () => service.report(checkId),
    (read) => read.status === 'complete',
    { timeoutMs: 30_000 },
  );
  expect(report.summary.received).toBe(SEEDS.length);
  return checkId;
};

describe('the sender audit under npm start, on the mail stack', () => {
  beforeAll(async () => {
    service = await startAuditService(SEEDS);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  it('takes one audit per check from one source fetch, and the report shows it ready with a score', async () => {
    const checkId = await deliveredCheck();
    const audit = await service.settledAudit(checkId);
    if (audit?.state !== 'ready') throw new Error(`the audit is not ready: ${JSON.stringify(audit)}`);
    expect(audit.copy.fetched).toBe('source');
    expect(audit.copy.bytes).toBeGreaterThan(1000);
    expect(audit.copy.bytes).toBeLessThanOrEqual(MAX_SOURCE_BYTES);
    expect(audit.copy.provider).toBe('imap');
    expect(audit.score.outOf).toBe(10);
    expect(audit.score.value).toBeGreaterThanOrEqual(0);
    expect(audit.score.value).toBeLessThanOrEqual(10);
    expect(audit.checklists.map((list) => list.ruleSet).length).toBe(3);
    // Read from the source: content was judged, and DNS answered from the loopback server within its budget.
    expect(audit.notChecked.map((item) => item.id)).not.toContain('content');
    expect(audit.notChecked.filter((item) => item.why.startsWith('DNS unknown'))).toEqual([]);
    // Two copies recorded, one audit: exactly one source fetch for the check.
    expect(service.fetches.get(checkId)).toBe(1);
    expect(service.storedAfterMs.get(checkId)).toBeGreaterThanOrEqual(0);
    // A later read judges the same stored facts again: the same findings.
    const again = (await service.report(checkId)).audit;
    expect(again).toEqual(audit);
  }, 60_000);

  it('reads a source larger than the cap only up to it, and says the rest was not seen', async () => {
    const big = { ...CLEAN_MESSAGE, html: newsletterHtml({ minBytes: MAX_SOURCE_BYTES + 100 * 1024 }) };
    const checkId = await deliveredCheck(big);
    const audit = await service.settledAudit(checkId);
    if (audit?.state !== 'ready') throw new Error(`the audit is not ready: ${JSON.stringify(audit)}`);
    expect(audit.copy).toMatchObject({ fetched: 'source', bytes: MAX_SOURCE_BYTES });
    expect(audit.notChecked.map((item) => item.id)).toContain('content.truncated');
    expect(service.fetches.get(checkId)).toBe(1);
  }, 60_000);
});

describe('AUDIT=off under npm start', () => {
  beforeAll(async () => {
    service = await startAuditService(SEEDS, { AUDIT: 'off' });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
  });

  it('fetches no source and the report says the audit is off', async () => {
    const checkId = await deliveredCheck();
    expect((await service.report(checkId)).audit).toEqual({
      state: 'unavailable',
      why: 'the sender audit is off on this deployment',
    });
    expect(service.fetches.size).toBe(0);
  }, 60_000);
});
