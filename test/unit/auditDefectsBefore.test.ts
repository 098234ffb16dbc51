// Issue 42's alignment and one-click defects as the audit's public entry points show them, with the domains the
// receiver verified given as data: the code before the issue computed alignment from every DKIM-Signature d= and the
// Return-Path, and took any signature over the unsubscribe headers, so each case here read `pass` there (docs/audit.md,
// "Defects as tests"). The same cases through the receiver's header reader are in auditVerified.test.ts.
import { describe, expect, it } from 'vitest';
import { auditCopy, copyFactsOf } from '../../shared/audit/audit';
import type { CheckDns } from '../../shared/audit/checkDns';
import { auditDns } from '../../shared/audit/dnsResults';
import { dnsSubjectsOf } from '../../shared/audit/dnsSubjects';
import type { AuditReport, CopyFacts } from '../../shared/audit/types';
import { authVerdictOf } from '../../shared/scanner/authResults';
import { headerBlockOf } from '../../shared/scanner/headers';
import { cleanParts, inboxEverywhere, sourceOf } from '../support/auditMessage';

const TRUST = { ids: ['mx.google.com'] };

/** A zone with a DMARC record (p=none) for the From domain and nothing else. */
const dmarcOnly: CheckDns = {
  lookup: async (name, type) =>
    (name === '_dmarc.shop.example.com' && type === 'TXT'
      ? { kind: 'records', records: ['v=DMARC1; p=none'] }
      : { kind: 'none', reason: 'nxdomain' }) as never,
  close: () => undefined,
};

/** The clean message (signed d=shop.example.com) as received under `results`, the receiver verifying `verified`. */
const auditOf = async (
  results: string | undefined,
  verified: CopyFacts['verified'],
): Promise<AuditReport> => {
  const parts = cleanParts();
  const withResults =
    results === undefined
      ? parts
      : { ...parts, received: [`Authentication-Results: mx.google.com; ${results}`, ...parts.received] };
  const source = sourceOf(withResults);
  const block = headerBlockOf(source) ?? '';
  const copy = await copyFactsOf(source, {
    provider: 'gmail',
    auth: authVerdictOf(block, TRUST),
    verified,
    headersOnly: false,
  });
  if (!copy) throw new Error('no header block');
  const dns = await auditDns(dmarcOnly, dnsSubjectsOf(copy), { ipLists: [], domainLists: [] });
  return auditCopy({ copy, dns, placements: inboxEverywhere });
};

const judgement = (report: AuditReport, set: string, id: string) =>
  report.checklists.find((c) => c.ruleSet === set)?.items.find((i) => i.id === id)?.judgement;

describe('alignment and one-click rest on what the receiver verified', () => {
  it('dkim=fail and dmarc=fail: From is not aligned and one-click is not signed, whatever DKIM-Signature says', async () => {
    const report = await auditOf(
      'dkim=fail header.d=shop.example.com; spf=pass smtp.mailfrom=b@esp.example; dmarc=fail',
      {
        dkim: [],
        spf: ['esp.example'],
      },
    );
    expect(judgement(report, 'Gmail', 'dmarc-aligned')).toBe('fail');
    expect(judgement(report, 'Gmail', 'one-click-unsubscribe')).toBe('fail');
  });

  it('a receiver that writes no verdicts: alignment is unknown under SPF and DKIM unknown, never pass', async () => {
    const report = await auditOf(undefined, null);
    for (const set of ['Gmail', 'Yahoo']) {
      expect(judgement(report, set, 'dkim-pass')).toBe('unknown');
      expect(judgement(report, set, 'dmarc-aligned')).toBe('unknown');
    }
  });
});
