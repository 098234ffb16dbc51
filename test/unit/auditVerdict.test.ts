// The sender audit's verdict: a clean message scores 10/10 with nothing to fix; each bulk-sender rule fails on its
// own change; what could not be judged is named and never passed; fix-first weighs where the copies went.
import { describe, expect, it } from 'vitest';
import { auditCopy, copyFactsOf } from '../../shared/audit/audit';
import { ITEM_TEXT, type RuleItemId } from '../../shared/audit/rules/ruleItems';
import type {
  AuditInput,
  AuditReport,
  DnsResults,
  ProviderPlacement,
  VerifiedDomains,
} from '../../shared/audit/types';
import { SEVERITY_POINTS } from '../../shared/audit/verdict';
import type { AuthVerdict } from '../../shared/domain/receivingVerdicts';
import { authVerdictOf } from '../../shared/scanner/authResults';
import {
  cleanDns,
  cleanHeaders,
  cleanParts,
  GMAIL_RECEIVED,
  inboxEverywhere,
  type MessageParts,
  passingAuth,
  passingVerified,
  sourceOf,
} from '../support/auditMessage';

interface Case {
  parts?: MessageParts;
  auth?: AuthVerdict | null;
  verified?: VerifiedDomains | null;
  dns?: DnsResults | undefined;
  placements?: Record<string, ProviderPlacement>;
}

const inputOf = async (c: Case): Promise<AuditInput> => {
  const auth = c.auth === undefined ? passingAuth() : c.auth;
  const copy = await copyFactsOf(sourceOf(c.parts ?? cleanParts()), {
    provider: 'gmail',
    auth,
    verified: 'verified' in c ? (c.verified ?? null) : auth === null ? null : passingVerified(),
    headersOnly: false,
  });
  if (!copy) throw new Error('no header block');
  return { copy, dns: 'dns' in c ? c.dns : cleanDns(), placements: c.placements ?? inboxEverywhere };
};
const audit = async (c: Case = {}): Promise<AuditReport> => auditCopy(await inputOf(c));
const headers = (change: (h: string[]) => string[]): MessageParts => ({
  ...cleanParts(),
  headers: change(cleanHeaders()),
});
const failed = (report: AuditReport) =>
  report.findings.map((f) => f.id).filter((id) => id.startsWith('rules.'));

describe('verdict', () => {
  it('a clean message gets 10/10, an empty fix-first list, nothing unchecked, every rule item passed', async () => {
    const report = await audit();
    expect(report.findings).toEqual([]);
    expect(report.fixFirst).toEqual([]);
    expect(report.notChecked).toEqual([]);
    expect(report.score).toEqual({ value: 10, outOf: 10, deductions: [], partial: false });
    expect(report.checklists.map((c) => c.ruleSet)).toEqual(['Gmail', 'Yahoo', 'Microsoft (Outlook.com)']);
    // Every item passes but those no message can show (the spam rate…): unknown with why, and not "not checked".
    const items = report.checklists.flatMap((c) => c.items);
    expect(items.filter((i) => i.judgement !== 'pass').map((i) => [i.id, i.judgement])).toEqual(
      items
        .filter((i) => ITEM_TEXT[i.id as RuleItemId].outOfReach !== undefined)
        .map((i) => [i.id, 'unknown']),
    );
    expect(items.every((i) => i.judgement !== 'unknown' || (i.detail ?? '') !== '')).toBe(true);
  });

  it.each([
    ['spf-pass', { auth: { ...passingAuth(), spf: 'softfail', dmarc: 'fail' } }],
    ['dkim-pass', { auth: { ...passingAuth(), dkim: 'fail', dmarc: 'fail' } }],
    [
      'dmarc-published',
      {
        auth: { ...passingAuth(), dmarc: 'none' },
        dns: { ...cleanDns(), dmarcPublished: { state: 'known', value: false } },
      },
    ],
    [
      'dmarc-aligned',
      {
        auth: { ...passingAuth(), dmarc: 'fail' },
        dns: { ...cleanDns(), dmarcAligned: { state: 'known', value: false } },
      },
    ],
    [
      'one-click-unsubscribe',
      { parts: headers((h) => h.filter((l) => !l.startsWith('List-Unsubscribe-Post'))) },
    ],
    [
      'tls',
      {
        parts: {
          ...cleanParts(),
          received: [
            'Received: from mail.shop.example.com ([192.0.2.7]) by mx.google.com with ESMTP id q; Mon, 1 Jan 2024',
          ],
        },
      },
    ],
    ['fcrdns', { dns: { ...cleanDns(), fcrdns: { state: 'known', value: false } } }],
    ['rfc5322', { parts: headers((h) => h.filter((l) => !l.startsWith('Message-ID'))) }],
    [
      'no-provider-from',
      { parts: headers((h) => h.map((l) => (l.startsWith('From:') ? 'From: Shop <shop@gmail.com>' : l))) },
    ],
  ] as [string, Case][])(
    'rule item %s fails on its own change, with a deduction and a fix',
    async (item, c) => {
      const report = await audit(c);
      expect(failed(report)).toEqual([`rules.${item}`]);
      const finding = report.findings.find((f) => f.id === `rules.${item}`);
      expect(finding?.fix).toMatch(/\.$/);
      expect(report.score.deductions).toEqual([
        { findingId: `rules.${item}`, points: SEVERITY_POINTS[finding?.severity ?? 'info'] },
      ]);
      expect(report.score.value).toBeLessThan(10);
    },
  );

  it('one-click needs both List-Unsubscribe headers in the DKIM h= list', async () => {
    const unsigned = headers((h) =>
      h.map((l) =>
        l.startsWith('DKIM-Signature') ? l.replace(':list-unsubscribe:list-unsubscribe-post', '') : l,
      ),
    );
    expect(failed(await audit({ parts: unsigned }))).toEqual(['rules.one-click-unsubscribe']);
  });

  it('no authentication results and DNS that timed out: named as not checked, never passed, score partial', async () => {
    const timedOut = { state: 'unknown', why: 'lookups timed out' } as const;
    const report = await audit({
      auth: null,
      dns: {
        findings: [],
        notChecked: [{ id: 'dns.spf', why: 'DNS unknown: lookups timed out' }],
        dmarcPublished: timedOut,
        dmarcAligned: timedOut,
        fcrdns: timedOut,
      },
    });
    const items = report.checklists.flatMap((c) => c.items);
    for (const id of ['spf-pass', 'dkim-pass', 'dmarc-published', 'dmarc-aligned', 'fcrdns'])
      expect(items.filter((i) => i.id === id).every((i) => i.judgement === 'unknown')).toBe(true);
    expect(report.notChecked).toEqual(
      expect.arrayContaining([
        { id: 'rules.spf-pass', why: 'no authentication results from this receiver' },
        { id: 'rules.fcrdns', why: 'DNS unknown: lookups timed out' },
        { id: 'dns.spf', why: 'DNS unknown: lookups timed out' },
      ]),
    );
    expect(report.score.partial).toBe(true);
    expect(report.findings).toEqual([]);
  });

  it("an Authentication-Results the sender wrote, below the receiver's own, changes no verdict", async () => {
    const own =
      'Authentication-Results: mx.google.com; spf=softfail smtp.mailfrom=shop.example.com; dkim=pass; dmarc=pass';
    const forged =
      'Authentication-Results: mx.google.com; spf=pass smtp.mailfrom=shop.example.com; dkim=pass; dmarc=pass';
    const parts = {
      ...cleanParts(),
      received: [own, ...GMAIL_RECEIVED],
      headers: [forged, ...cleanHeaders()],
    };
    const block = sourceOf(parts).toString('latin1').split('\r\n\r\n')[0] ?? '';
    const auth = authVerdictOf(block, { ids: ['mx.google.com'] });
    expect(auth?.spf).toBe('softfail');
    expect(failed(await audit({ parts, auth }))).toEqual(['rules.spf-pass']);
  });

  it('without any DNS results every DNS item is unknown and DNS is named as not consulted', async () => {
    const report = await audit({ auth: { ...passingAuth(), dmarc: null }, dns: undefined });
    expect(report.notChecked.map((n) => n.id)).toEqual(
      expect.arrayContaining(['dns', 'rules.fcrdns', 'rules.dmarc-published']),
    );
  });

  it('fix-first: a finding for Outlook alone ranks low when Outlook placed the copy in the inbox', async () => {
    // TLS matters to Gmail (spam there); one-click to all three sets, but this finding's providers placed as given.
    const parts = {
      ...headers((h) => h.filter((l) => !l.startsWith('List-Unsubscribe-Post'))),
      received: [
        'Received: from mail.shop.example.com ([192.0.2.7]) by mx.google.com with ESMTP id q; Mon, 1 Jan 2024',
      ],
    };
    const placements = {
      gmail: { inbox: 0, spam: 2, missing: 0, other: 0 },
      outlook: { inbox: 1, spam: 0, missing: 0, other: 0 },
    };
    const report = await audit({
      parts,
      placements,
      dns: {
        ...cleanDns(),
        findings: [
          {
            id: 'dns.outlook-only',
            severity: 'high',
            title: 'x',
            fix: 'y.',
            mattersFor: ['outlook'],
            source: 'z',
          },
        ],
      },
    });
    const order = report.fixFirst.map((f) => f.findingId);
    expect(order.indexOf('rules.tls')).toBeLessThan(order.indexOf('dns.outlook-only'));
    expect(report.fixFirst.find((f) => f.findingId === 'dns.outlook-only')?.why).toBe(
      'copies reached the inbox at outlook',
    );
    expect(report.fixFirst.find((f) => f.findingId === 'rules.tls')?.why).toBe(
      'copies went to spam or were missing at gmail',
    );
  });
});
