// The sender audit end to end: what npm start runs (test/support/auditService.ts: the scanner over the loopback mail
// stack, the audit's one source fetch per check, DNS from Knot with the test blocklist zones) and the report's
// `audit` for one check per message of test/support/auditMessages.ts, each sent through Postfix from its own
// 127.0.0.x. Each check's audit is ready with exactly the findings its message trips, ranked in the fix-first list;
// the clean message scores 10/10 with an empty list; a ZEN refusal is not checked, never listed; a sender-written
// Received naming a listed IP and Authentication-Results saying pass change neither the sending IP nor a verdict.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_SENDING_IPS } from '../../scripts/lib/testZones';
import type { ReportAudit } from '../../shared/domain/auditReport';
import type { WithSnakeKeys } from '../../shared/domain/wireKeys';
import {
  AUDIT_CASES,
  type AuditCaseName,
  sendAuditMessage,
  UNKNOWN_BY_NATURE,
} from '../support/auditMessages';
import { type AuditService, startAuditService } from '../support/auditService';

/** One seed: each check completes on its one copy, which the audit reads. */
const SEED = 'user004@mail.test';
const names = Object.keys(AUDIT_CASES) as AuditCaseName[];

type Ready = Extract<ReportAudit, { state: 'ready' }>;
let service: AuditService;
const checks = new Map<AuditCaseName, string>();
const audits = new Map<AuditCaseName, ReportAudit | undefined>();

beforeAll(async () => {
  service = await startAuditService([SEED]);
  // Every check started and its message sent first, then all audits awaited: one composition, many checks.
  for (const name of names) {
    const { check_id: checkId, accounts } = await service.startCheck();
    checks.set(name, checkId);
    await sendAuditMessage(AUDIT_CASES[name].message, {
      to: accounts[0] ?? '',
      subject: `audit ${name} ${randomUUID()}`,
    });
  }
  await Promise.all(
    names.map(async (name) => audits.set(name, await service.settledAudit(checks.get(name) ?? '', 30_000))),
  );
}, 120_000);
afterAll(() => service?.close());

const ready = (name: AuditCaseName): Ready => {
  const audit = audits.get(name);
  if (audit?.state !== 'ready') throw new Error(`${name}: the audit is ${JSON.stringify(audit)}`);
  return audit;
};

describe("the sender audit in the report, on real messages through the stack's MX", () => {
  it('is ready for every check, from one source fetch of its copy', () => {
    for (const name of names) {
      expect(ready(name).copy, name).toMatchObject({ provider: 'imap', fetched: 'source' });
      expect(service.fetches.get(checks.get(name) ?? ''), name).toBe(1);
    }
  });

  it.each(names)('%s: exactly its findings, each in the fix-first list', (name) => {
    const audit = ready(name);
    const expected = AUDIT_CASES[name].findings;
    expect(audit.findings.map((finding) => finding.id).sort(), JSON.stringify(audit.findings)).toEqual(
      [...expected].sort(),
    );
    // Every finding worth a fix is ranked; an info one (optional, as BIMI) never is.
    const ranked = audit.fixFirst.map((entry) => entry.findingId);
    for (const finding of audit.findings)
      if (finding.severity === 'info') expect(ranked, finding.id).not.toContain(finding.id);
      else expect(ranked, finding.id).toContain(finding.id);
    if (expected.length === 1) expect(ranked[0]).toBe(expected[0]);
    for (const id of AUDIT_CASES[name].notChecked)
      expect(audit.notChecked.map((entry) => entry.id)).toContain(id);
  });

  it('scores the clean message 10/10 with an empty fix-first list, every rule passed, nothing unchecked', () => {
    const audit = ready('clean');
    // The wire's snake_case fields (the deprecated camelCase twins beside them are wireKeys.test.ts's to prove).
    const { value, out_of, deductions, partial } = audit.score as WithSnakeKeys<Ready['score']>;
    expect({ value, out_of, deductions, partial }).toEqual({
      value: 10,
      out_of: 10,
      deductions: [],
      partial: false,
    });
    expect(audit.fixFirst).toEqual([]);
    expect(audit.notChecked).toEqual([]);
    const items = audit.checklists.flatMap((list) => list.items.map((item) => ({ set: list.ruleSet, item })));
    expect(items.length).toBeGreaterThan(0);
    // Every rule item passes but those no message can show: unknown, with why.
    for (const { set, item } of items)
      if (UNKNOWN_BY_NATURE.includes(item.id))
        expect([set, item.id, item.judgement, item.detail]).toEqual([
          set,
          item.id,
          'unknown',
          expect.stringMatching(/\S/),
        ]);
      else expect([set, item.id, item.judgement]).toEqual([set, item.id, 'pass']);
    expect(items.some(({ item }) => UNKNOWN_BY_NATURE.includes(item.id))).toBe(true);
  });

  it('names each deduction, and scores a finding below 10', () => {
    for (const name of names.filter((n) => AUDIT_CASES[n].findings.length > 0)) {
      const { score, findings } = ready(name);
      expect(score.value, name).toBeLessThan(10);
      expect(score.deductions.map((d) => d.findingId).sort()).toEqual(
        findings
          .filter((f) => f.severity !== 'info')
          .map((f) => f.id)
          .sort(),
      );
    }
  });

  it('tells a PBL listing from an SBL one', () => {
    const [pbl] = ready('pblIp').findings;
    const [sbl] = ready('sblIp').findings;
    expect(pbl).toMatchObject({ severity: 'high', title: expect.stringMatching(/PBL/) });
    expect(pbl?.fix).toMatch(/end-user/);
    expect(sbl).toMatchObject({ severity: 'critical', title: expect.stringMatching(/SBL/) });
  });

  it('shows a refusal code as not checked, never as listed', () => {
    const audit = ready('refusedIp');
    const id = `blocklist.spamhaus-zen.${AUDIT_SENDING_IPS.refused}`;
    expect(audit.findings).toEqual([]);
    expect(audit.score.partial).toBe(true);
    const entry = audit.notChecked.find((n) => n.id === id);
    expect(entry?.why).toMatch(/refused the query \(127\.255\.255\.254/);
    expect(JSON.stringify(audit)).not.toMatch(/\blisted\b|is on Spamhaus/i);
  });

  it('a forged Received and forged Authentication-Results change neither the sending IP nor a verdict', () => {
    const audit = ready('forgedHeaders');
    // The forged Received names the SBL-listed IP: no listing, and the real sending IP's reverse DNS passes.
    expect(audit.findings.filter((f) => f.id.startsWith('blocklist.'))).toEqual([]);
    expect(audit.notChecked.map((n) => n.id)).not.toContain(
      `blocklist.spamhaus-zen.${AUDIT_SENDING_IPS.sbl}`,
    );
    const items = new Map(
      audit.checklists.flatMap((list) => list.items.map((item) => [`${list.ruleSet} ${item.id}`, item])),
    );
    // The message is unsigned: the receiver said dkim=none, whatever the forgeries said.
    expect(items.get('Gmail dkim-pass')).toMatchObject({
      judgement: 'fail',
      detail: expect.stringMatching(/dkim=none/),
    });
    expect(items.get('Gmail fcrdns')?.judgement).toBe('pass');
    expect(items.get('Gmail tls')?.judgement).toBe('pass');
  });
});
