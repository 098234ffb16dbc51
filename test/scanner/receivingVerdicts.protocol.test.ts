// The placement report's header reading over real header shapes: Gmail, Outlook.com and Yahoo copies as their
// providers write them, with the sender's forgeries below, and hostile values. Sources of each sample are named
// beside it; addresses and IPs are swapped for documentation ones (example.com, 192.0.2.0/24).
import { describe, expect, it } from 'vitest';
import { trustOf } from '../../shared/domain/receivingTrust';
import { presetFor } from '../../shared/providers/presets';
import { MAX_AUTH_HEADERS, MAX_REASON, parseAuthResults } from '../../shared/scanner/authResults';
import { evidenceOf } from '../../shared/scanner/evidence';
import { FETCHED_HEADERS, headerBlockOf } from '../../shared/scanner/headers';
import { MAX_RULE_LENGTH, MAX_RULES, SPAM_HEADERS } from '../../shared/scanner/spamVerdict';
import { authResults } from '../support/placementReport';

const block = (lines: string[]) => headerBlockOf(`${lines.join('\r\n')}\r\n\r\n`) ?? '';
const presetTrust = (provider: string) => trustOf(presetFor(provider).quirks.receiving.value, {});
const DELIVERED = Date.parse('2026-11-24T17:00:05Z');

/**
 * Gmail: the order and forms of a copy's headers as Gmail's "Show original" gives them (Google's "Trace an email
 * with its full headers" help page shows Authentication-Results: mx.google.com; the rest as in public samples):
 * Gmail's own Authentication-Results sits below its mx.google.com Received line, and the sender's header block,
 * forgery included, below that.
 */
const GMAIL = [
  'Delivered-To: someone+tc_h7vlvp24y7xpdm6puop3@gmail.com',
  'Received: by 2002:a05:6a10:a0d1:b0:5a3:7c9b:1d2f with SMTP id h17csp1234567pxa;',
  '        Tue, 24 Nov 2026 09:00:05 -0800 (PST)',
  'ARC-Authentication-Results: i=1; mx.google.com;',
  '       dkim=fail header.i=@example.com header.s=s1 header.b=AbCdEf12;',
  '       spf=fail smtp.mailfrom=sender@example.com',
  'Return-Path: <sender@example.com>',
  'Received: from mail.example.com (mail.example.com. [192.0.2.10])',
  '        by mx.google.com with ESMTPS id a1si123456qkb.2026.11.24.09.00.05',
  '        for <someone+tc_h7vlvp24y7xpdm6puop3@gmail.com>',
  '        (version=TLS1_3 cipher=TLS_AES_256_GCM_SHA384 bits=256/256);',
  '        Tue, 24 Nov 2026 09:00:05 -0800 (PST)',
  'Received-SPF: pass (google.com: domain of sender@example.com designates 192.0.2.10 as permitted sender) client-ip=192.0.2.10;',
  'Authentication-Results: mx.google.com;',
  '       dkim=pass header.i=@example.com header.s=s1 header.b=AbCdEf12;',
  '       spf=pass (google.com: domain of sender@example.com designates 192.0.2.10 as permitted sender) smtp.mailfrom=sender@example.com;',
  '       dmarc=pass (p=REJECT sp=REJECT dis=NONE) header.from=example.com',
  // Written by the sender: the same authserv-id, lower down, claiming what Gmail did not say.
  'Authentication-Results: mx.google.com; dkim=fail; spf=fail; dmarc=fail; arc=pass',
  'Authentication-Results: evil.example; spf=pass',
  'X-Spam-Status: No, score=-100.0 required=5.0 tests=ALL_TRUSTED',
  'Date: Tue, 24 Nov 2026 17:00:02 +0000',
  'From: Sender <sender@example.com>',
];

/**
 * Outlook.com: the fields and forms Microsoft Learn's "Anti-spam message headers in Microsoft 365" documents
 * (Authentication-results without an authserv-id: spf, dkim, dmarc, compauth; X-Forefront-Antispam-Report with
 * CIP, CTRY, LANG, SCL, SRV, IPV, SFV, H, PTR, CAT, SFS, DIR; X-Microsoft-Antispam with BCL), in the order public
 * Outlook.com and Exchange Online copies show: Exchange prepends its Received lines and results above the message's
 * own headers and appends its organization mark and verdict headers below them.
 */
const outlook = (scl: number, sfv: string, cat: string, bcl: number) => [
  'Received: from DM6PR02MB1234.namprd02.prod.outlook.com (2603:10b6:5:1::1) by',
  ' SN6PR02MB5678.namprd02.prod.outlook.com with HTTPS; Tue, 24 Nov 2026 17:00:05 +0000',
  'Authentication-Results: spf=pass (sender IP is 192.0.2.10)',
  ' smtp.mailfrom=example.com; dkim=pass (signature was verified)',
  ' header.d=example.com;dmarc=pass action=none header.from=example.com;compauth=pass',
  ' reason=100',
  'Received-SPF: Pass (protection.outlook.com: domain of example.com designates',
  ' 192.0.2.10 as permitted sender) receiver=protection.outlook.com;',
  ' client-ip=192.0.2.10; helo=mail.example.com; pr=C',
  'Received: from mail.example.com (192.0.2.10) by',
  ' DM6NAM11FT012.mail.protection.outlook.com (10.13.172.10) with Microsoft SMTP Server; Tue, 24 Nov 2026 17:00:04 +0000',
  // The sender's, all above Exchange's mark: Microsoft prepends its results and appends its verdicts.
  'Authentication-Results: spf=fail; dkim=fail; dmarc=fail',
  'X-Forefront-Antispam-Report: SCL:-1;SFV:SKN;',
  'X-Microsoft-Antispam: BCL:9;',
  'X-Microsoft-Antispam-Mailbox-Delivery: dest:J;',
  'X-Spam-Status: Yes, score=99.0 required=5.0 tests=FORGED',
  'Date: Tue, 24 Nov 2026 17:00:00 +0000',
  'X-MS-Exchange-Organization-Network-Message-Id: 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
  `X-Forefront-Antispam-Report: CIP:192.0.2.10;CTRY:US;LANG:en;SCL:${scl};SRV:;IPV:NLI;SFV:${sfv};H:mail.example.com;PTR:mail.example.com;CAT:${cat};SFS:(13230031)(4636009);DIR:INB;`,
  'X-MS-Exchange-Organization-SCL: 1',
  `X-Microsoft-Antispam: BCL:${bcl};ARA:13230031;`,
  `X-Microsoft-Antispam-Mailbox-Delivery: ucf:0;jmr:0;auth:0;dest:${sfv === 'SPM' ? 'J' : 'I'};ENG:(910001)(944506478);`,
];

/**
 * Yahoo: a copy's headers in the form public Yahoo samples show (Yahoo documents none): the authserv-id is the
 * receiving host (trusted by its exact name), DMARC's policy comment stuck to its result, a trailing semicolon.
 */
const YAHOO = [
  'Return-Path: <sender@example.com>',
  'Received-SPF: pass (domain of example.com designates 192.0.2.10 as permitted sender)',
  'Authentication-Results: atlas-production.v2-mail-prod1-gq1.omega.yahoo.com;',
  ' dkim=pass header.i=@example.com header.s=s1;',
  ' spf=pass smtp.mailfrom=example.com;',
  ' dmarc=pass(p=REJECT) header.from=example.com;',
  'X-Originating-IP: [192.0.2.10]',
  'Received: from 192.0.2.10 (EHLO mail.example.com) by 10.217.151.75 with SMTPs;',
  ' Tue, 24 Nov 2026 17:00:04 +0000',
  'Authentication-Results: mta.yahoo.com.evil.example; dkim=fail',
  'Date: Tue, 24 Nov 2026 17:00:01 +0000',
];

describe('the scanner fetches every header the report reads', () => {
  it('asks IMAP for Date, Authentication-Results and each spam header', () => {
    for (const name of ['date', 'authentication-results', ...SPAM_HEADERS])
      expect(FETCHED_HEADERS).toContain(name);
  });
});

describe('Gmail copy', () => {
  it("reads Gmail's own results and no spam verdict (Gmail writes none)", () => {
    const evidence = evidenceOf(block(GMAIL), DELIVERED, presetTrust('gmail'));
    expect(evidence).toEqual({
      deliveredAt: DELIVERED,
      sentAt: Date.parse('2026-11-24T17:00:02Z'),
      auth: authResults({
        reasons: {
          spf: 'google.com: domain of sender@example.com designates 192.0.2.10 as permitted sender',
          dkim: null,
          dmarc: 'p=REJECT sp=REJECT dis=NONE',
          arc: null,
        },
      }),
      spam: null,
    });
  });

  it("never shows the sender's forgeries: Gmail's id below Gmail's own, another id, a SpamAssassin header", () => {
    const { auth, spam } = evidenceOf(block(GMAIL), DELIVERED, presetTrust('gmail'));
    // The forged mx.google.com header claims dkim=fail and arc=pass; evil.example claims spf=pass.
    expect(auth?.dkim).toBe('pass');
    expect(auth?.arc).toBeNull();
    expect(spam).toBeNull();
  });

  it('reports no authentication for an account that trusts no authserv-id, whatever the copy carries', () => {
    expect(evidenceOf(block(GMAIL), DELIVERED, presetTrust('imap')).auth).toBeNull();
    expect(evidenceOf(block(GMAIL), DELIVERED, undefined)).toMatchObject({ auth: null, spam: null });
  });

  it('never reads ARC-Authentication-Results as Authentication-Results', () => {
    const arcOnly = GMAIL.filter(
      (line) => !line.startsWith('Authentication-Results:') && !line.startsWith('  '),
    );
    expect(evidenceOf(block(arcOnly), DELIVERED, presetTrust('gmail')).auth).toBeNull();
  });
});

describe('Outlook.com copy', () => {
  it("reads Microsoft's topmost, unnamed results and its SCL/SFV/BCL", () => {
    const evidence = evidenceOf(block(outlook(1, 'NSPM', 'NONE', 0)), DELIVERED, presetTrust('outlook'));
    expect(evidence.auth).toEqual({
      spf: 'pass',
      dkim: 'pass',
      dmarc: 'pass',
      arc: null,
      authserv_id: null,
      reasons: { spf: 'sender IP is 192.0.2.10', dkim: 'signature was verified', dmarc: null, arc: null },
    });
    expect(evidence.spam).toEqual({
      filter: 'microsoft',
      score: 1,
      threshold: 5,
      verdict: 'ham',
      rules: ['SFV:NSPM', 'CAT:NONE', 'BCL:0'],
    });
    expect(evidence.sentAt).toBe(Date.parse('2026-11-24T17:00:00Z'));
  });

  it('reads a junked copy as spam with its category and bulk level', () => {
    const { spam } = evidenceOf(block(outlook(5, 'SPM', 'SPM', 7)), DELIVERED, presetTrust('microsoft365'));
    expect(spam).toEqual({
      filter: 'microsoft',
      score: 5,
      threshold: 5,
      verdict: 'spam',
      rules: ['SFV:SPM', 'CAT:SPM', 'BCL:7'],
    });
  });

  it('reads SFV:SKS (spam by a mail flow rule) as spam and a skipped filter (SKN: safe-listed) as no verdict', () => {
    const verdictOf = (sfv: string) =>
      evidenceOf(block(outlook(-1, sfv, 'NONE', 0)), DELIVERED, presetTrust('outlook')).spam;
    expect(verdictOf('SKS')).toMatchObject({ verdict: 'spam', score: -1 });
    expect(verdictOf('SKN')).toMatchObject({ verdict: null, rules: ['SFV:SKN', 'CAT:NONE', 'BCL:0'] });
  });

  it("takes nothing when the topmost results header names an authserv-id (it is not Microsoft's form)", () => {
    const lines = ['Authentication-Results: mx.example.net; dkim=pass', ...outlook(1, 'NSPM', 'NONE', 0)];
    expect(evidenceOf(block(lines), DELIVERED, presetTrust('outlook')).auth).toBeNull();
  });
});

describe('Yahoo copy', () => {
  it("reads Yahoo's results by a host it is known to write, not a look-alike", () => {
    const evidence = evidenceOf(block(YAHOO), DELIVERED, presetTrust('yahoo'));
    expect(evidence.auth).toEqual({
      spf: 'pass',
      dkim: 'pass',
      dmarc: 'pass',
      arc: null,
      authserv_id: 'atlas-production.v2-mail-prod1-gq1.omega.yahoo.com',
      // DMARC's policy comment stuck to its result is still the comment right after it.
      reasons: { spf: null, dkim: null, dmarc: 'p=REJECT', arc: null },
    });
    expect(evidence.spam).toBeNull();
    const lookAlikeOnly = YAHOO.filter((line) => !line.startsWith('Authentication-Results: atlas'));
    expect(evidenceOf(block(lookAlikeOnly), DELIVERED, presetTrust('yahoo')).auth).toBeNull();
  });
});

describe('RFC 8601 forms', () => {
  it('reads the examples of RFC 8601 appendix B: a version, no result, quoted and commented values', () => {
    expect(parseAuthResults('example.org 1; none')).toEqual({
      authservId: 'example.org',
      results: {},
      reasons: {},
      passed: { dkim: [], spf: [] },
    });
    expect(
      parseAuthResults(
        'example.com; spf=pass smtp.mailfrom=example.net (comment; with a semicolon) ; dkim=pass (good "sig") header.i=@mail-router.example.net; dkim=fail (bad) header.i=@newyork.example.com',
      ),
    ).toEqual({
      authservId: 'example.com',
      results: { spf: 'pass', dkim: 'pass' },
      // spf's comment stands after a property, not after its result: no reason. DKIM's with the passing signature.
      reasons: { dkim: 'good "sig"' },
      // What passed, by domain: the passing signature's header.i, SPF's smtp.mailfrom; never the failing one.
      passed: { dkim: ['mail-router.example.net'], spf: ['example.net'] },
    });
    expect(parseAuthResults('"quoted.example" ; spf/1 = softfail').results).toEqual({ spf: 'softfail' });
  });

  it("reads iCloud's headers (one per method, each its own id) from its topmost run, each method from its own id", () => {
    const lines = [
      'Authentication-Results: bimi.icloud.com; bimi=none',
      'Authentication-Results: dmarc.icloud.com; dmarc=pass header.from=example.com',
      'Authentication-Results: dkim-verifier.icloud.com; dkim=pass (2048-bit key) header.d=example.com',
      'Authentication-Results: spf.icloud.com; spf=pass (spf.icloud.com: domain of sender@example.com designates 192.0.2.10 as permitted sender) smtp.mailfrom=sender@example.com',
      // The sender's, below iCloud's run: a repeated id, and one iCloud writes above spf.icloud.com, never below.
      'Authentication-Results: dmarc.icloud.com; dmarc=fail',
      'Authentication-Results: arc.icloud.com; arc=pass',
    ];
    expect(evidenceOf(block(lines), DELIVERED, presetTrust('icloud')).auth).toEqual({
      spf: 'pass',
      dkim: 'pass',
      dmarc: 'pass',
      arc: null,
      authserv_id: 'dmarc.icloud.com',
      reasons: {
        spf: 'spf.icloud.com: domain of sender@example.com designates 192.0.2.10 as permitted sender',
        dkim: '2048-bit key',
        dmarc: null,
        arc: null,
      },
    });
  });
});

describe("the receiving side's reasons", () => {
  /** Gmail's form for a signature whose body was changed in transit (as public Gmail copies show it). */
  const gmailBodyHash = [
    'Authentication-Results: mx.google.com;',
    '       dkim=neutral (body hash did not verify) header.i=@example.com header.s=s1 header.b=AbCdEf12;',
    '       spf=pass (google.com: domain of sender@example.com designates 192.0.2.10 as permitted sender) smtp.mailfrom=sender@example.com;',
    '       dmarc=fail (p=NONE sp=NONE dis=NONE) header.from=example.com',
    // The sender's, in Gmail's name, below Gmail's own: its reasons must never show.
    'Authentication-Results: mx.google.com; dkim=fail (key revoked, says the forger); arc=fail (forged chain)',
    'Date: Tue, 24 Nov 2026 17:00:02 +0000',
  ];

  it("keeps Gmail's comment after dkim=neutral as the reason, and nothing from the forged header below", () => {
    const { auth } = evidenceOf(block(gmailBodyHash), DELIVERED, presetTrust('gmail'));
    expect(auth).toMatchObject({ dkim: 'neutral', dmarc: 'fail', arc: null });
    expect(auth?.reasons).toEqual({
      spf: 'google.com: domain of sender@example.com designates 192.0.2.10 as permitted sender',
      dkim: 'body hash did not verify',
      dmarc: 'p=NONE sp=NONE dis=NONE',
      arc: null,
    });
  });

  it('never takes a reason from another header than its result, even when the trusted one gives none', () => {
    const lines = [
      'Authentication-Results: mx.google.com; dkim=fail header.i=@example.com',
      'Authentication-Results: mx.google.com; dkim=fail (the forger explains) header.i=@example.com',
      'Authentication-Results: evil.example; dkim=fail reason="another host explains"',
    ];
    expect(evidenceOf(block(lines), DELIVERED, presetTrust('gmail')).auth?.reasons.dkim).toBeNull();
  });

  it("reads RFC 8601's reason property (section 2.2, reasonspec), quoted or a token, before any comment", () => {
    const parsed = parseAuthResults(
      'example.com; dkim=pass reason="good signature" header.i=@mail-router.example.net; dkim=fail reason="bad signature" header.i=@newyork.example.com; spf=fail reason=not-permitted (comment) smtp.mailfrom=example.net; dmarc=fail (the comment) reason="the \\"reason\\""',
    );
    expect(parsed.results).toEqual({ dkim: 'pass', spf: 'fail', dmarc: 'fail' });
    expect(parsed.reasons).toEqual({ dkim: 'good signature', spf: 'not-permitted', dmarc: 'the "reason"' });
  });

  it('takes only a comment right after the result word, and none from a result that is not read', () => {
    const parsed = parseAuthResults(
      'mail.test; spf=softfail smtp.mailfrom=example.net (too late); dkim=fail(stuck to it) header.d=example.com; bimi=fail (not a method read)',
    );
    expect(parsed.reasons).toEqual({ dkim: 'stuck to it' });
  });

  it('caps a hostile reason, removes control and direction characters, and reads long comments in linear time', () => {
    const controls = 'bad\u0000\u001b[31m\u202e\r\n\tkey';
    const long = `${'\u{1D11E}'.repeat(500)}`;
    const lines = [
      `Authentication-Results: mail.test; dkim=fail (${controls}); spf=fail (${long}); dmarc=fail reason="${'x'.repeat(1000)}"`,
    ];
    const trust = { auth: { ids: ['mail.test'] }, spamFilters: [] };
    const { reasons } = evidenceOf(block(lines), DELIVERED, trust).auth ?? {};
    expect(reasons?.dkim).toBe('bad [31m key');
    expect(Buffer.byteLength(reasons?.spf ?? '')).toBeLessThanOrEqual(MAX_REASON);
    expect(reasons?.spf).toMatch(/^(\u{1D11E})+…$/u);
    expect(reasons?.dmarc).toBe(`${'x'.repeat(MAX_REASON - 3)}…`);
    // A comment of 200,000 nested parentheses after a result: read once, its reason capped.
    const nested = parseAuthResults(
      `mail.test; dkim=fail (${'('.repeat(200_000)}deep${')'.repeat(200_000)})`,
    );
    expect(nested.results.dkim).toBe('fail');
    expect(Buffer.byteLength(nested.reasons.dkim ?? '')).toBeLessThanOrEqual(MAX_REASON);
  });
});

describe('hostile headers stay bounded', () => {
  /** The receiver's own hop, below which SpamAssassin's header would not be its own. */
  const RECEIVED = 'Received: from mail.example.com by mail.test with LMTP; Tue, 24 Nov 2026 17:00:04 +0000';

  const trust = { auth: { ids: ['mail.test'] }, spamFilters: ['spamassassin'] as const };

  it('caps rules in number and length and drops junk names', () => {
    const tests = Array.from({ length: 5000 }, (_, index) => `RULE_${index}`).join(',');
    const lines = [
      `X-Spam-Status: Yes, score=1e400 required=NaN tests=${'A'.repeat(MAX_RULE_LENGTH + 1)},<script>,${tests}`,
      RECEIVED,
    ];
    const { spam } = evidenceOf(block(lines), DELIVERED, trust);
    expect(spam?.rules).toHaveLength(MAX_RULES);
    expect(spam?.rules[0]).toBe('RULE_0');
    expect(spam).toMatchObject({ score: null, threshold: null, verdict: 'spam' });
  });

  it('reads a bounded number of results headers, of bounded length, whatever the nesting', () => {
    const nested = `${'('.repeat(200_000)}${')'.repeat(10)}`;
    const lines = [
      `Authentication-Results: mail.test; ${nested}; dkim=pass`,
      `Authentication-Results: ${'x'.repeat(300)}; dkim=pass`,
      ...Array.from({ length: 5000 }, () => 'Authentication-Results: other.example; spf=pass'),
      'Authentication-Results: mail.test; spf=pass',
      `Date: ${'Tue, 24 Nov 2026 17:00:00 +0000 '.repeat(50)}`,
    ];
    const evidence = evidenceOf(block(lines), DELIVERED, trust);
    // The unclosed comment swallows the rest of the topmost header, the only one read: nothing below it counts.
    expect(evidence.auth).toEqual({
      spf: null,
      dkim: null,
      dmarc: null,
      arc: null,
      authserv_id: 'mail.test',
      reasons: { spf: null, dkim: null, dmarc: null, arc: null },
    });
    expect(MAX_AUTH_HEADERS).toBeLessThan(5000);
    expect(evidence.sentAt).toBeUndefined();
    expect(JSON.stringify(evidence).length).toBeLessThan(1024);
  });

  it('keeps the largest possible evidence under 2 KB of UTF-8 (a check of 100 accounts stays far under the 400 KB item)', () => {
    const rules = Array.from({ length: 40 }, (_, index) => `${'R'.repeat(MAX_RULE_LENGTH - 3)}_${index}`);
    const lines = [
      // Each reason at its cap in UTF-8 (four-byte characters, the most bytes per character).
      `Authentication-Results: ${'a'.repeat(127)}; ${['spf=temperror', 'dkim=permerror', 'dmarc=temperror', 'arc=permerror'].map((result) => `${result} (${'\u{1D11E}'.repeat(100)})`).join('; ')}`,
      `X-Spam-Status: Yes, score=-99999.9999 required=-99999.9999 tests=${rules.join(',')}`,
      RECEIVED,
      'Date: Tue, 24 Nov 2026 17:00:00 +0000',
    ];
    const evidence = evidenceOf(block(lines), DELIVERED, {
      auth: { ids: ['a'.repeat(127)] },
      spamFilters: ['spamassassin'],
    });
    expect(evidence.auth?.authserv_id).toHaveLength(127);
    expect(evidence.spam?.rules).toHaveLength(MAX_RULES);
    for (const reason of Object.values(evidence.auth?.reasons ?? {}))
      expect(Buffer.byteLength(reason ?? '')).toBeGreaterThan(MAX_REASON - 4);
    expect(Buffer.byteLength(JSON.stringify(evidence))).toBeLessThan(2048);
  });
});
