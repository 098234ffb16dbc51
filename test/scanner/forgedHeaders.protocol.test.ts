// Only the receiver is trusted, for every preset: each copy below is what that provider's receiving side writes (in the
// order public copies show it), with the sender's forgeries where a sender's headers are, fetched over IMAP from a
// scripted server by the real Scanner and ImapConnector. The forgeries: Authentication-Results in the receiver's
// name and in look-alike names (a suffix, other letter case, a trailing dot, another id the receiver writes),
// X-Spam-Status, Microsoft's verdict headers, and Delivered-To / X-Original-To naming another pending check. None of
// them may change what is credited, to which check, or the verdicts the report shows; a copy on which the receiver
// wrote no verdict shows none, never the sender's.
import { describe, expect, it } from 'vitest';
import { StaticCredentialSource } from '../../scripts/lib/StaticCredentialSource';
import { type ScriptedImap, startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import type { DetectedCategory } from '../../shared/domain/categories';
import { newCheckId } from '../../shared/domain/checkId';
import type { AuthVerdict, SpamVerdict } from '../../shared/domain/placementReport';
import type { PlacementDetails } from '../../shared/domain/ports';
import { trustOf } from '../../shared/domain/receivingTrust';
import { createLogger } from '../../shared/log';
import { type Provider, presetFor } from '../../shared/providers/presets';
import { Scanner } from '../../shared/scanner/Scanner';
import { cleanupsAfterEach } from '../support/cleanups';
import { OffsetClock } from '../support/clocks';
import { authResults } from '../support/placementReport';
import { MemoryCursors } from '../support/scannerFakes';

const clock = new OffsetClock();
const cleanups = cleanupsAfterEach();

const CAPABILITIES = ['IMAP4rev1', 'UIDPLUS', 'MOVE', 'IDLE'];
const PASSWORD = 'scripted-password';
const DATE = 'Date: Tue, 24 Nov 2026 17:00:00 +0000';
const PASS =
  'dkim=pass header.d=example.com; spf=pass smtp.mailfrom=example.com; dmarc=pass header.from=example.com';
const MS_MARK = 'X-MS-Exchange-Organization-Network-Message-Id: 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

/** The headers a sender writes for a copy tagged for `own`, forging everything that names or judges it. */
const senderPart = (address: (checkId: string) => string, own: string, other: string, ids: string[]) => [
  // Authentication-Results claiming what the receiver did not say, in its names and look-alikes of them.
  ...ids.map((id) => `Authentication-Results: ${id}; dkim=fail; spf=fail; dmarc=fail; arc=pass`),
  'Authentication-Results: dkim=fail; spf=fail; dmarc=fail; arc=pass',
  'X-Spam-Checker-Version: SpamAssassin 4.0.1 (2024-03-25) on mx.forged.example',
  'X-Spam-Status: No, score=-100.0 required=5.0 tests=ALL_TRUSTED autolearn=ham',
  'X-Forefront-Antispam-Report: SCL:-1;SFV:SKN;CAT:NONE;',
  'X-Microsoft-Antispam: BCL:0;',
  'X-Microsoft-Antispam-Mailbox-Delivery: ucf:0;dest:J;',
  `Delivered-To: ${address(other)}`,
  `X-Original-To: ${address(other)}`,
  'From: Sender <sender@example.com>',
  `To: ${address(own)}`,
  DATE,
];

/** Look-alikes of `id`: a longer name ending in it, a name it ends in, other case with a trailing dot. */
const lookAlikes = (id: string) => [
  `x.${id}`,
  id.slice(id.indexOf('.') + 1),
  `${id.toUpperCase()}.`,
  `${id}.evil.example`,
  id,
];

interface Copy {
  /** What the receiving side wrote above the sender's headers, and appended below them (Exchange). */
  above: (address: (checkId: string) => string, own: string) => string[];
  below?: string[];
}

interface Case {
  provider: Provider;
  email: string;
  /** The account's own trust settings, where the preset trusts nothing (the generic IMAP server). */
  own?: { authservIds?: string[]; spamFilters?: ('spamassassin' | 'microsoft')[] };
  /** Names the sender forges; the receiver's own ids and look-alikes of them. */
  forgedIds: string[];
  /** A copy with the receiver's verdicts, and what the report must show of it. */
  judged: Copy & { auth: AuthVerdict | null; spam: Partial<SpamVerdict> | null; verdict?: 'inbox' | 'junk' };
  /**
   * A copy on which the receiving side wrote no verdict of its own that can be read (a filter skipped it, a host not
   * listed wrote it), and the results it did write. Where trust is by id alone (Gmail, iCloud), the receiver always
   * writes its results and RFC 8601 has it remove others that claim its id: there is no such copy.
   */
  unjudged?: Copy & { auth: AuthVerdict | null };
}

const passed = (authserv_id: string | null, reasons: Partial<AuthVerdict['reasons']> = {}) =>
  authResults({
    spf: 'pass',
    dkim: 'pass',
    dmarc: 'pass',
    arc: null,
    authserv_id,
    reasons: { spf: null, dkim: null, dmarc: null, arc: null, ...reasons },
  });

const received = (by: string, forClause: string) =>
  `Received: from mail.example.com (mail.example.com [192.0.2.10]) by ${by} with ESMTPS id 4c5d6e${forClause}; Tue, 24 Nov 2026 17:00:04 +0000`;

const YAHOO_ID = 'atlas-production.v2-mail-prod1-gq1.omega.yahoo.com';
const AOL_ID = 'atlas101.aol.mail.bf1.yahoo.com';
/** Yahoo and AOL: the receiving host's own Received and results, then its SMTP hop, with no `for` clause. */
const yahooLike = (id: string) => () => [
  `Received: from 127.0.0.1 by ${id} with HTTP; Tue, 24 Nov 2026 17:00:05 +0000`,
  'Received-SPF: pass (domain of example.com designates 192.0.2.10 as permitted sender)',
  `Authentication-Results: ${id}; ${PASS}`,
  'Received: from 192.0.2.10 (EHLO mail.example.com) by 10.217.151.75 with SMTPs; Tue, 24 Nov 2026 17:00:04 +0000',
];
/** Exchange: its hops and unnamed results on top; its mark and verdict headers appended below the message's own. */
const exchangeAbove = () => [
  'Received: from DM6PR02MB1234.namprd02.prod.outlook.com (2603:10b6:5:1::1) by SN6PR02MB5678.namprd02.prod.outlook.com with HTTPS; Tue, 24 Nov 2026 17:00:05 +0000',
  `Authentication-Results: ${PASS.replaceAll('; ', ';')};compauth=pass reason=100`,
  received('DM6NAM11FT012.mail.protection.outlook.com', ''),
];
const EXCHANGE_BELOW = [
  MS_MARK,
  'X-Forefront-Antispam-Report: CIP:192.0.2.10;CTRY:US;LANG:en;SCL:5;SRV:;IPV:NLI;SFV:SPM;CAT:SPM;DIR:INB;',
  'X-MS-Exchange-Organization-SCL: 5',
  'X-Microsoft-Antispam: BCL:7;',
  'X-Microsoft-Antispam-Mailbox-Delivery: ucf:0;jmr:0;auth:0;dest:I;',
];
const microsoft = (provider: Provider, email: string): Case => ({
  provider,
  email,
  forgedIds: [],
  judged: {
    above: exchangeAbove,
    below: EXCHANGE_BELOW,
    auth: passed(null),
    spam: { filter: 'microsoft', score: 5, verdict: 'spam', rules: ['SFV:SPM', 'CAT:SPM', 'BCL:7'] },
    verdict: 'inbox',
  },
  // Exchange took nothing in (no mark): the sender's unnamed results and verdict headers are the only ones there.
  unjudged: { above: () => [received('DM6NAM11FT012.mail.protection.outlook.com', '')], auth: null },
});

const CASES: Case[] = [
  {
    provider: 'gmail',
    email: 'seed@gmail.com',
    forgedIds: lookAlikes('mx.google.com'),
    judged: {
      above: (address, own) => [
        `Delivered-To: ${address(own)}`,
        received('mx.google.com', ` for <${address(own)}>`),
        `Authentication-Results: mx.google.com; ${PASS}`,
      ],
      auth: passed('mx.google.com'),
      spam: null,
    },
  },
  microsoft('outlook', 'seed@outlook.com'),
  microsoft('microsoft365', 'seed@contoso.example'),
  {
    provider: 'yahoo',
    email: 'seed@yahoo.com',
    forgedIds: [...lookAlikes(YAHOO_ID), 'x.yahoo.com', 'atlas206.free.mail.ne1.yahoo.com'],
    judged: { above: yahooLike(YAHOO_ID), auth: passed(YAHOO_ID), spam: null },
    // A receiving host whose id the preset does not list: its results are unknown, and the sender's are not read.
    unjudged: { above: yahooLike('atlas999.free.mail.ne1.yahoo.com'), auth: null },
  },
  {
    provider: 'aol',
    email: 'seed@aol.com',
    forgedIds: [...lookAlikes(AOL_ID), 'atlas206.aol.mail.ne1.yahoo.com'],
    judged: { above: yahooLike(AOL_ID), auth: passed(AOL_ID), spam: null },
    unjudged: { above: yahooLike('atlas999.aol.mail.ne1.yahoo.com'), auth: null },
  },
  {
    provider: 'icloud',
    email: 'seed@icloud.com',
    forgedIds: [...lookAlikes('spf.icloud.com'), 'dmarc.icloud.com', 'arc.icloud.com'],
    judged: {
      above: (address, own) => [
        'Authentication-Results: bimi.icloud.com; bimi=none',
        'Authentication-Results: dmarc.icloud.com; dmarc=pass header.from=example.com',
        'Authentication-Results: dkim-verifier.icloud.com; dkim=pass header.d=example.com',
        'Authentication-Results: spf.icloud.com; spf=pass smtp.mailfrom=example.com',
        received('mx.icloud.com', ` for <${address(own)}>`),
      ],
      auth: { ...passed('dmarc.icloud.com'), arc: null },
      spam: null,
    },
  },
  {
    // The loopback mail stack's shape: Dovecot LMTP's Delivered-To and Received on top, the auth filter's results,
    // and, where junk@'s Sieve filter ran spamc, SpamAssassin's headers above them all.
    provider: 'imap',
    email: 'seed@mail.test',
    own: { authservIds: ['mail.test'], spamFilters: ['spamassassin'] },
    forgedIds: lookAlikes('mail.test'),
    judged: {
      above: (address, own) => [
        'X-Spam-Checker-Version: SpamAssassin 4.0.1 (2024-03-25) on mx.mail.test',
        'X-Spam-Status: Yes, score=6.5 required=5.0 tests=MISSING_MID,TVD_SPACE_RATIO autolearn=disabled',
        `Delivered-To: ${address(own)}`,
        received('mail.test (Dovecot) with LMTP', ` for <${address(own)}>`),
        `Authentication-Results: mail.test; ${PASS}`,
      ],
      auth: passed('mail.test'),
      spam: {
        filter: 'spamassassin',
        score: 6.5,
        verdict: 'spam',
        rules: ['MISSING_MID', 'TVD_SPACE_RATIO'],
      },
    },
    // spamc passes a message over its size limit through untouched: SpamAssassin wrote nothing on this one.
    unjudged: {
      above: (address, own) => [
        `Delivered-To: ${address(own)}`,
        received('mail.test (Dovecot) with LMTP', ` for <${address(own)}>`),
        `Authentication-Results: mail.test; ${PASS}`,
      ],
      auth: passed('mail.test'),
    },
  },
];

interface Recorded {
  checkId: string;
  category: DetectedCategory;
  details: PlacementDetails | undefined;
}

const sweep = async (item: Case, copies: [checkId: string, headers: string[]][], pending: string[]) => {
  const preset = presetFor(item.provider);
  const server: ScriptedImap = await startScriptedImap({
    greeting: `* OK [CAPABILITY ${CAPABILITIES.join(' ')}] ready`,
    capabilities: { beforeLogin: CAPABILITIES, afterLogin: CAPABILITIES },
    login: { user: item.email, pass: PASSWORD },
    folders: [
      {
        path: 'INBOX',
        attributes: ['\\HasNoChildren'],
        uidValidity: 1,
        messages: copies.map(([, headers], index) => ({
          uid: index + 1,
          internalDate: clock.now() - 60_000,
          headers: `${headers.join('\r\n')}\r\n`,
        })),
      },
    ],
  });
  const recorded: Recorded[] = [];
  const log = createLogger('test', 'error', () => undefined);
  const scanner = new Scanner({
    checks: {
      listActive: async () => pending.map((checkId) => ({ checkId, pending: [item.email] })),
      settle: async () => [],
      recordResult: async (checkId, _email, category, _now, details) => {
        recorded.push({ checkId, category, details });
        return 'recorded';
      },
    },
    cursors: new MemoryCursors(),
    credentials: new StaticCredentialSource(
      new Map([
        [
          item.email,
          {
            email: item.email,
            provider: item.provider,
            imap: { host: server.host, port: server.port, secure: false },
            auth: { user: item.email, pass: PASSWORD },
            folders: {},
            trust: trustOf(preset.quirks.receiving.value, item.own ?? {}),
          },
        ],
      ]),
    ),
    connector: new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: 5000 }),
    clock,
    log,
  });
  cleanups.push(
    () => server.close(),
    () => scanner.close(),
  );
  await scanner.sweepOnce();
  return recorded;
};

describe('forged headers change nothing, for every preset', () => {
  it.each(CASES)('$provider', async (item) => {
    const [judged = '', unjudged = '', other = ''] = Array.from({ length: 3 }, () => newCheckId());
    const [local, domain] = item.email.split('@');
    const address = (checkId: string) => `${local}+tc_${checkId}@${domain}`;
    const copyOf = (copy: Copy, own: string) => [
      ...copy.above(address, own),
      ...senderPart(address, own, other, item.forgedIds),
      ...(copy.below ?? []),
    ];
    const copies: [string, string[]][] = [[judged, copyOf(item.judged, judged)]];
    if (item.unjudged) copies.push([unjudged, copyOf(item.unjudged, unjudged)]);
    const recorded = await sweep(item, copies, [judged, unjudged, other]);

    // Credited to the check the receiver delivered it for, never to the one the sender's Delivered-To names.
    expect(recorded.map(({ checkId }) => checkId).sort()).toEqual(copies.map(([checkId]) => checkId).sort());
    const details = (checkId: string) => recorded.find((entry) => entry.checkId === checkId)?.details;
    const own = details(judged);
    expect(own?.auth).toEqual(item.judged.auth);
    if (item.judged.spam === null) expect(own?.spam).toBeNull();
    else expect(own?.spam).toMatchObject(item.judged.spam);
    expect(own?.providerVerdict).toBe(item.judged.verdict);
    // The receiver wrote no verdict on this one: the report says none, never the sender's.
    if (item.unjudged)
      expect(details(unjudged)).toMatchObject({
        auth: item.unjudged.auth,
        spam: null,
        providerVerdict: undefined,
      });
  });
});
