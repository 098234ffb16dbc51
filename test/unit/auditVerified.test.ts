// Verdicts only from what the receiver verified (issue 42): alignment, one-click and the provider-From item read the
// domains the receiver's own Authentication-Results passed, never a DKIM-Signature or Return-Path as the sender
// wrote it; the rule sets list their pages' items, one root cause is one finding, and a receiver's pass is said
// beside any finding on that method's records.
import { describe, expect, it } from 'vitest';
import { auditCopy, copyFactsOf } from '../../shared/audit/audit';
import type { CheckDns } from '../../shared/audit/checkDns';
import { auditDns } from '../../shared/audit/dnsResults';
import { dnsSubjectsOf } from '../../shared/audit/dnsSubjects';
import { gmailRules } from '../../shared/audit/rules/gmail';
import { microsoftRules } from '../../shared/audit/rules/microsoft';
import { ITEM_TEXT, RULE_ITEMS } from '../../shared/audit/rules/ruleItems';
import { RULE_SETS } from '../../shared/audit/rules/ruleSets';
import { yahooRules } from '../../shared/audit/rules/yahoo';
import type { AuditReport, CopyFacts, DnsResults, Finding } from '../../shared/audit/types';
import type { AuthVerdict } from '../../shared/domain/receivingVerdicts';
import { authVerdictOf, verifiedDomainsOf } from '../../shared/scanner/authResults';
import { headerBlockOf } from '../../shared/scanner/headers';
import {
  cleanDns,
  cleanHeaders,
  cleanParts,
  inboxEverywhere,
  type MessageParts,
  passingAuth,
  passingVerified,
  sourceOf,
} from '../support/auditMessage';

const TRUST = { ids: ['mx.google.com'] };

/** The clean message as received, with the receiver's own Authentication-Results on top (`results`), if any. */
const received = (
  results: string | undefined,
  change: (h: string[]) => string[] = (h) => h,
): MessageParts => {
  const parts = cleanParts();
  return {
    ...parts,
    received:
      results === undefined
        ? parts.received
        : [`Authentication-Results: mx.google.com; ${results}`, ...parts.received],
    headers: change(cleanHeaders()),
  };
};

/** The copy's facts as the audit takes them: auth and verified domains read from its block for the receiver's trust. */
const factsOf = async (parts: MessageParts): Promise<CopyFacts> => {
  const source = sourceOf(parts);
  const block = headerBlockOf(source) ?? '';
  const facts = await copyFactsOf(source, {
    provider: 'gmail',
    auth: authVerdictOf(block, TRUST),
    verified: verifiedDomainsOf(block, TRUST),
    headersOnly: false,
  });
  if (!facts) throw new Error('no header block');
  return facts;
};

/** A zone with a DMARC record (p=none) for the From domain and nothing else. */
const dmarcOnly: CheckDns = {
  lookup: async (name, type) =>
    (name === '_dmarc.shop.example.com' && type === 'TXT'
      ? { kind: 'records', records: ['v=DMARC1; p=none'] }
      : { kind: 'none', reason: 'nxdomain' }) as never,
  close: () => undefined,
};

const auditOf = async (parts: MessageParts, dns?: DnsResults): Promise<AuditReport> => {
  const copy = await factsOf(parts);
  const results = dns ?? (await auditDns(dmarcOnly, dnsSubjectsOf(copy), { ipLists: [], domainLists: [] }));
  return auditCopy({ copy, dns: results, placements: inboxEverywhere });
};

const item = (report: AuditReport, set: string, id: string) =>
  report.checklists.find((c) => c.ruleSet === set)?.items.find((i) => i.id === id);

describe('verdicts only from what the receiver verified', () => {
  it('reads the domains the receiver passed from its own header, never from one the sender wrote below it', () => {
    const block = [
      'Authentication-Results: mx.google.com; dkim=pass header.i=@Shop.Example.com header.s=s1; dkim=fail header.d=other.example; spf=pass (google.com: domain of b@mail.shop.example.com designates 192.0.2.7 as permitted sender) smtp.mailfrom=b@mail.shop.example.com; dmarc=pass',
      'Authentication-Results: mx.google.com; dkim=pass header.d=forged.example; spf=pass smtp.mailfrom=forged.example',
      'From: a@shop.example.com',
      '',
    ].join('\r\n');
    expect(verifiedDomainsOf(block, TRUST)).toEqual({
      dkim: ['shop.example.com'],
      spf: ['mail.shop.example.com'],
    });
    expect(verifiedDomainsOf(block, { ids: ['mx.other.example'] })).toBeNull();
  });

  it('the receiver wrote dkim=fail and dmarc=fail: From is not aligned, whatever DKIM-Signature says d=', async () => {
    const report = await auditOf(
      received('dkim=fail header.d=shop.example.com; spf=pass smtp.mailfrom=bounce@esp.example; dmarc=fail'),
    );
    expect(item(report, 'Gmail', 'dmarc-aligned')?.judgement).toBe('fail');
    expect(item(report, 'Gmail', 'one-click-unsubscribe')?.judgement).toBe('fail');
  });

  it('a receiver that writes no verdicts: alignment and one-click are unknown, never pass', async () => {
    const report = await auditOf(received(undefined));
    for (const set of ['Gmail', 'Yahoo']) {
      expect(item(report, set, 'spf-pass')?.judgement).toBe('unknown');
      expect(item(report, set, 'dmarc-aligned')?.judgement).toBe('unknown');
      expect(item(report, set, 'one-click-unsubscribe')?.judgement).toBe('unknown');
    }
    expect(report.notChecked.map((n) => n.id)).toContain('dns.dmarc-alignment');
    expect(report.score.partial).toBe(true);
  });

  it('aligns on the verified SPF domain alone when no signature passed', async () => {
    const report = await auditOf(
      received('dkim=none; spf=pass smtp.mailfrom=bounces@mail.shop.example.com; dmarc=pass'),
    );
    expect(item(report, 'Gmail', 'dmarc-aligned')?.judgement).toBe('pass');
    expect(report.findings.map((f) => f.id)).not.toContain('dns.dmarc-alignment');
  });

  it('one-click needs a signature the receiver verified over both headers, not any signature', async () => {
    const otherSigner = (h: string[]) => [
      ...h.filter((l) => !l.startsWith('DKIM-Signature')),
      'DKIM-Signature: v=1; d=esp.example; s=e1; h=from:list-unsubscribe:list-unsubscribe-post; bh=x; b=y',
      'DKIM-Signature: v=1; d=shop.example.com; s=s1; h=from:to:subject; bh=x; b=y',
    ];
    const report = await auditOf(
      received(
        'dkim=pass header.d=shop.example.com; dkim=fail header.d=esp.example; spf=pass smtp.mailfrom=b@mail.shop.example.com; dmarc=pass',
        otherSigner,
      ),
    );
    expect(item(report, 'Gmail', 'one-click-unsubscribe')).toMatchObject({
      judgement: 'fail',
      detail: 'no signature the receiver verified covers both List-Unsubscribe headers',
    });
  });

  it('a From at gmail.com with a forged d=gmail.com signature fails: the receiver verified no Google signature', async () => {
    const report = await auditOf(
      received(
        'dkim=fail header.d=gmail.com; spf=pass smtp.mailfrom=b@mail.shop.example.com; dmarc=fail',
        (h) => [
          ...h.map((l) => (l.startsWith('From:') ? 'From: <shop@gmail.com>' : l)),
          'DKIM-Signature: v=1; d=gmail.com; s=g; h=from; bh=x; b=y',
        ],
      ),
    );
    expect(item(report, 'Gmail', 'no-provider-from')?.judgement).toBe('fail');
  });
});

describe('rule sets as their pages state them', () => {
  it('one rule lives once: every set names catalogue items, and no set is a copy of the catalogue', () => {
    expect(RULE_ITEMS).toEqual(Object.keys(ITEM_TEXT));
    for (const set of RULE_SETS) {
      expect(set.items.every((id) => id in ITEM_TEXT)).toBe(true);
      expect(new Set(set.items).size).toBe(set.items.length);
      expect(set.items).not.toEqual(RULE_ITEMS);
    }
  });

  it('one-click only where the page asks it: Google and Yahoo; Microsoft asks a working unsubscribe link', () => {
    expect(gmailRules.items).toContain('one-click-unsubscribe');
    expect(yahooRules.items).toContain('one-click-unsubscribe');
    expect(microsoftRules.items).not.toContain('one-click-unsubscribe');
    for (const set of RULE_SETS) expect(set.items).toContain('unsubscribe-link');
  });

  it('the spam rate and complaint feedback appear as unknown with why, never omitted and never "not checked"', async () => {
    const report = await auditOf(
      received(
        'dkim=pass header.d=shop.example.com; spf=pass smtp.mailfrom=b@mail.shop.example.com; dmarc=pass',
      ),
      cleanDns(),
    );
    for (const set of ['Gmail', 'Yahoo'])
      expect(item(report, set, 'spam-rate')).toMatchObject({
        judgement: 'unknown',
        detail: expect.stringMatching(/Postmaster Tools/),
      });
    expect(item(report, 'Yahoo', 'complaint-feedback')?.judgement).toBe('unknown');
    expect(item(report, 'Gmail', 'spam-rate')?.label).toMatch(/0\.3 %/);
    expect(report.notChecked).toEqual([]);
    expect(report.score.partial).toBe(false);
  });

  it('a visible unsubscribe link in the body is looked for, in the HTML or the text part', async () => {
    const auth =
      'dkim=pass header.d=shop.example.com; spf=pass smtp.mailfrom=b@mail.shop.example.com; dmarc=pass';
    const noLink = { ...received(auth), html: '<p>Hello from the shop, with news of every department.</p>' };
    const report = await auditOf(noLink, cleanDns());
    expect(item(report, 'Microsoft (Outlook.com)', 'unsubscribe-link')?.judgement).toBe('fail');
    expect(report.findings.map((f) => f.id)).toContain('rules.unsubscribe-link');
    const inText = await auditOf(
      { ...noLink, text: 'News of the week.\r\nTo stop these: https://shop.example.com/u/unsubscribe?id=1' },
      cleanDns(),
    );
    expect(item(inText, 'Gmail', 'unsubscribe-link')?.judgement).toBe('pass');
  });

  it('no DKIM is one fix with its weight, not four: alignment and the unsigned unsubscribe headers fold into it', async () => {
    const unsigned = received('dkim=none; spf=pass smtp.mailfrom=bounce@esp.example; dmarc=fail', (h) =>
      h.filter((l) => !l.startsWith('DKIM-Signature')),
    );
    const alignment: Finding = {
      id: 'dns.dmarc-alignment',
      severity: 'high',
      title: 'From shop.example.com aligns with no authenticated domain',
      fix: 'Sign with DKIM d=shop.example.com.',
      mattersFor: 'all',
      source: 'RFC 7489',
    };
    const report = await auditOf(unsigned, {
      ...cleanDns(),
      findings: [alignment],
      dmarcAligned: { state: 'known', value: false },
    });
    expect(item(report, 'Gmail', 'dmarc-aligned')?.judgement).toBe('fail');
    expect(item(report, 'Gmail', 'one-click-unsubscribe')?.judgement).toBe('fail');
    expect(report.findings.map((f) => f.id)).toEqual(['rules.dkim-pass']);
    expect(report.score.deductions).toEqual([{ findingId: 'rules.dkim-pass', points: 1.5 }]);
    expect(report.fixFirst.map((f) => f.findingId)).toEqual(['rules.dkim-pass']);
    expect(report.findings[0]?.title).toMatch(/It also fails: .*aligned.*One-click/);
  });
});

describe("the receiver's verdicts stay ahead of the audit's", () => {
  const brokenSpf: Finding = {
    id: 'dns.spf',
    severity: 'high',
    title: 'The SPF record of mail.shop.example.com has a syntax error (ip4:192.0.2.1/33).',
    fix: 'Fix the record.',
    mattersFor: 'all',
    source: 'RFC 7208',
  };
  const weakKey = (domain: string): Finding => ({
    ...brokenSpf,
    id: `dns.dkim-key.s1.${domain}`,
    title: 'A 512-bit key.',
  });
  const auditWith = async (auth: AuthVerdict, findings: Finding[]) =>
    auditCopy({
      copy: { ...(await factsOf(received(undefined))), auth, verified: passingVerified() },
      dns: { ...cleanDns(), findings },
      placements: inboxEverywhere,
    });

  it('a record the audit thinks broken while the receiver says pass reads "the receiver accepted it", with the RFC', async () => {
    const report = await auditWith(passingAuth(), [
      brokenSpf,
      weakKey('shop.example.com'),
      weakKey('esp.example'),
    ]);
    const title = (id: string) => report.findings.find((f) => f.id === id)?.title ?? '';
    expect(title('dns.spf')).toMatch(
      /The receiver \(mx\.google\.com\) accepted it \(spf=pass\); other receivers may not \(RFC 7208\)\.$/,
    );
    expect(title('dns.dkim-key.s1.shop.example.com')).toMatch(/accepted it \(dkim=pass\).*RFC 6376/);
    // The receiver verified no signature of esp.example: nothing to say for it.
    expect(title('dns.dkim-key.s1.esp.example')).toBe('A 512-bit key.');
  });

  it('where the receiver did not pass it, the finding stands alone', async () => {
    const report = await auditWith({ ...passingAuth(), spf: 'permerror', dmarc: 'fail' }, [brokenSpf]);
    expect(report.findings.find((f) => f.id === 'dns.spf')?.title).toBe(brokenSpf.title);
  });
});
