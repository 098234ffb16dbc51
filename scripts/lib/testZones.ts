// Owns the test DNS: every zone and record the loopback DNS server serves and the mail stack's mailauth resolver
// reads, in one table. Sender domains and their friends, then blocklist zones shaped as each list documents.

import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One resource record: owner name (no trailing dot), type, value in zone-file order (TXT unquoted, whole). */
export type TestRecord = readonly [
  name: string,
  type: 'A' | 'AAAA' | 'TXT' | 'MX' | 'PTR' | 'CNAME',
  value: string,
];

const fixtures = join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'dkim');
/** The p= of a DKIM record: the public half of a fixture's private key, DER (SPKI) in base64. */
const dkimPublic = (file: string) =>
  createPublicKey(readFileSync(join(fixtures, file), 'utf8'))
    .export({ type: 'spki', format: 'der' })
    .toString('base64');

/** The blocklist zones' names under test: each list module takes its zone as a setting, so tests point it here. */
export const TEST_LIST_ZONES = {
  zen: 'zen.spamhaus.test',
  dbl: 'dbl.spamhaus.test',
  spamcop: 'bl.spamcop.test',
  barracuda: 'b.barracuda.test',
  surbl: 'multi.surbl.test',
  uribl: 'multi.uribl.test',
} as const;

/**
 * The 127.0.0.x the audit's mail-stack tests send from, each named by the receiver's Received: all forward-confirmed
 * and in out.sender.test's SPF; the test ZEN lists one with a PBL code, one with an SBL code, and refuses one.
 */
export const AUDIT_SENDING_IPS = {
  clean: '127.0.0.30',
  pbl: '127.0.0.31',
  sbl: '127.0.0.32',
  refused: '127.0.0.33',
} as const;

/** The zones the server is authoritative for; a record belongs to the longest origin it ends with. */
export const TEST_ZONE_ORIGINS = [
  'sender.test',
  'offsite.test',
  '0.0.127.in-addr.arpa',
  ...Object.values(TEST_LIST_ZONES),
];

const s = 'sender.test';
/** An SPF record that costs 3 lookups itself and 3 more in each of its 3 includes: 12, over RFC 7208's 10. */
const deepSpf: TestRecord[] = [
  [`deep.${s}`, 'TXT', `v=spf1 include:l1.${s} include:l2.${s} include:l3.${s} -all`],
  ...[1, 2, 3].map((i): TestRecord => [`l${i}.${s}`, 'TXT', `v=spf1 a:h1.${s} a:h2.${s} a:h3.${s} -all`]),
  ...[1, 2, 3].map((i): TestRecord => [`h${i}.${s}`, 'A', `127.0.0.${10 + i}`]),
];

/** SPF record defects the audit's own walk must judge (mailauth judges the sending IP, not these). */
const spfTree: TestRecord[] = [
  // Two includes of one record are no loop, nor is one record reached through a CNAME alias.
  [`twoinc.${s}`, 'TXT', `v=spf1 include:inca.${s} include:incb.${s} -all`],
  [`inca.${s}`, 'TXT', `v=spf1 include:incc.${s} -all`],
  [`incb.${s}`, 'TXT', `v=spf1 include:incc.${s} -all`],
  [`incc.${s}`, 'TXT', 'v=spf1 ip4:127.0.0.1 -all'],
  [`alias.${s}`, 'CNAME', `inca.${s}`],
  [`aliased.${s}`, 'TXT', `v=spf1 include:inca.${s} include:alias.${s} -all`],
  [`selfloop.${s}`, 'TXT', `v=spf1 include:selfloop.${s} -all`],
  // +all behind an include and behind a redirect; behind ?include it passes no one.
  [`plusinc.${s}`, 'TXT', `v=spf1 include:plusall.${s} -all`],
  [`plusredir.${s}`, 'TXT', `v=spf1 redirect=plusall.${s}`],
  [`neutralinc.${s}`, 'TXT', `v=spf1 ?include:plusall.${s} -all`],
  // exists: targets are lookups that can be void.
  [`voidexists.${s}`, 'TXT', `v=spf1 exists:gone1.${s} exists:gone2.${s} exists:gone3.${s} -all`],
  // Syntax mailauth reads past.
  [`badcidr.${s}`, 'TXT', 'v=spf1 ip4:192.0.2.1/33 -all'],
  [`badterm.${s}`, 'TXT', 'v=spf1 foo:bar -all'],
  [`baddot.${s}`, 'TXT', 'v=spf1 ip4:127.0.0.1 -all.'],
  // An mx that names 11 hosts (section 4.6.4 allows 10).
  [`manymx.${s}`, 'TXT', 'v=spf1 mx -all'],
  ...Array.from({ length: 11 }, (_, i): TestRecord => [`manymx.${s}`, 'MX', `${i} mx.${s}`]),
];

/** RFC 7489 section 6.6.3 and DMARCbis cases under sender.test, whose own record is p=reject. */
const dmarcCases: TestRecord[] = [
  [`_dmarc.twodmarc.${s}`, 'TXT', 'v=DMARC1; p=none'],
  [`_dmarc.twodmarc.${s}`, 'TXT', 'v=DMARC1; p=reject'],
  [`_dmarc.bogusp.${s}`, 'TXT', 'v=DMARC1; p=bogus'],
  [`_dmarc.ruaonly.${s}`, 'TXT', `v=DMARC1; rua=mailto:dmarc@${s}`],
  [`_dmarc.bogussp.${s}`, 'TXT', 'v=DMARC1; p=reject; sp=bogus'],
  [`_dmarc.bogussprua.${s}`, 'TXT', `v=DMARC1; p=reject; sp=bogus; rua=mailto:dmarc@${s}`],
  [`_dmarc.testing.${s}`, 'TXT', `v=DMARC1; p=reject; t=y; rua=mailto:dmarc@${s}`],
  [`_dmarc.npsd.${s}`, 'TXT', `v=DMARC1; p=reject; sp=quarantine; np=reject; psd=n; rua=mailto:dmarc@${s}`],
  [`_dmarc.notdmarc.${s}`, 'TXT', 'v=spf1 -all'],
];

/** RFC 6376 section 3.6.1 key records, RFC 5321/7505 MX, generic reverse DNS and BIMI cases. */
const keyS1 = () => dkimPublic('sender.test.s1.key');
const otherCases = (): TestRecord[] => [
  [`testing._domainkey.${s}`, 'TXT', `v=DKIM1; k=rsa; t=y; p=${keyS1()}`],
  [`sha1._domainkey.${s}`, 'TXT', `v=DKIM1; k=rsa; h=sha1; p=${keyS1()}`],
  [`other._domainkey.${s}`, 'TXT', `v=DKIM1; k=rsa; s=other; p=${keyS1()}`],
  [`dupp._domainkey.${s}`, 'TXT', `v=DKIM1; p=${keyS1()}; p=${keyS1()}`],
  [`extra._domainkey.${s}`, 'TXT', `v=DKIM1; k=rsa; p=${keyS1()}`],
  [`extra._domainkey.${s}`, 'TXT', 'site-verification=0123456789'],
  [`implicit.${s}`, 'A', '127.0.0.1'],
  [`nullplus.${s}`, 'MX', '0 .'],
  [`nullplus.${s}`, 'MX', `10 mx.${s}`],
  ['5.0.0.127.in-addr.arpa', 'PTR', `127-0-0-5.dynamic.${s}`],
  [`127-0-0-5.dynamic.${s}`, 'A', '127.0.0.5'],
  ['default._bimi.decline.offsite.test', 'TXT', 'v=BIMI1; l=;'],
  ['default._bimi.spaced.offsite.test', 'TXT', 'v = BIMI1; l=https://offsite.test/logo.svg'],
];

const senders: TestRecord[] = [
  [s, 'TXT', 'v=spf1 ip4:127.0.0.1 -all'],
  [s, 'MX', `10 mx.${s}`],
  [`mx.${s}`, 'A', '127.0.0.1'],
  [`ns.${s}`, 'A', '127.0.0.1'],
  [`_dmarc.${s}`, 'TXT', 'v=DMARC1; p=reject; adkim=r; aspf=r'],
  [`s1._domainkey.${s}`, 'TXT', `v=DKIM1; k=rsa; p=${dkimPublic('sender.test.s1.key')}`],
  [`s1024._domainkey.${s}`, 'TXT', `v=DKIM1; k=rsa; p=${dkimPublic('weak.sender.test.s1024.key')}`],
  [`revoked._domainkey.${s}`, 'TXT', 'v=DKIM1; k=rsa; p='],
  [`default._bimi.${s}`, 'TXT', `v=BIMI1; l=https://${s}/logo.svg; a=https://${s}/vmc.pem`],
  ...deepSpf,
  ...spfTree,
  ...dmarcCases,
  ...otherCases(),
  // Three names that do not exist: RFC 7208 allows two such void lookups.
  [`void.${s}`, 'TXT', `v=spf1 a:gone1.${s} a:gone2.${s} a:gone3.${s} ip4:127.0.0.1 -all`],
  [`plusall.${s}`, 'TXT', 'v=spf1 +all'],
  [`qall.${s}`, 'TXT', 'v=spf1 ip4:127.0.0.1 ?all'],
  [`twospf.${s}`, 'TXT', 'v=spf1 -all'],
  [`twospf.${s}`, 'TXT', 'v=spf1 ip4:127.0.0.1 -all'],
  [`none.${s}`, 'TXT', 'v=spf1 ip4:127.0.0.1 -all'],
  [`none.${s}`, 'MX', `10 mx.${s}`],
  [`_dmarc.none.${s}`, 'TXT', `v=DMARC1; p=none; rua=mailto:dmarc@${s}`],
  [`quarantine.${s}`, 'TXT', 'v=spf1 ip4:127.0.0.1 -all'],
  [`_dmarc.quarantine.${s}`, 'TXT', `v=DMARC1; p=quarantine; pct=50; adkim=s; aspf=s; rua=mailto:dmarc@${s}`],
  [`nullmx.${s}`, 'MX', '0 .'],
  // Reverse DNS: .1 confirmed forward, .2 names a host that does not point back, .3 has no PTR at all.
  [`mail.${s}`, 'A', '127.0.0.1'],
  [`unconfirmed.${s}`, 'A', '127.0.0.9'],
  ['1.0.0.127.in-addr.arpa', 'PTR', `mail.${s}`],
  ['2.0.0.127.in-addr.arpa', 'PTR', `unconfirmed.${s}`],
  // The audit's mail-stack senders: a bounce domain under sender.test (aligned, relaxed) for every one of them, and
  // one outside it that signs and passes SPF for itself without aligning with a From in sender.test.
  ...Object.values(AUDIT_SENDING_IPS).flatMap((ip): TestRecord[] => {
    const host = `out${ip.split('.')[3]}.${s}`;
    return [
      [host, 'A', ip],
      [`${ip.split('.').reverse().join('.')}.in-addr.arpa`, 'PTR', host],
    ];
  }),
  [
    `out.${s}`,
    'TXT',
    `v=spf1 ${Object.values(AUDIT_SENDING_IPS)
      .map((ip) => `ip4:${ip}`)
      .join(' ')} -all`,
  ],
  ['mailer.offsite.test', 'TXT', `v=spf1 ip4:${AUDIT_SENDING_IPS.clean} -all`],
  ['s1._domainkey.mailer.offsite.test', 'TXT', `v=DKIM1; k=rsa; p=${dkimPublic('sender.test.s1.key')}`],
  ['offsite.test', 'TXT', 'v=spf1 ip4:192.0.2.1 -all'],
  // np=none (DMARCbis): a subdomain that does not exist gets no enforcement; those that exist get p=reject.
  ['_dmarc.offsite.test', 'TXT', 'v=DMARC1; p=reject; np=none'],
];

/** IPv4 as a DNSBL query prefix: octets reversed. */
const v4 = (ip: string) => ip.split('.').reverse().join('.');
/** 2001:db8::<last> as a DNSBL query prefix: 32 nibbles reversed. */
const v6 = (last: string) =>
  `20010db8${'0'.repeat(20)}${last.padStart(4, '0')}`.split('').reverse().join('.');

const { zen, dbl, spamcop, barracuda, surbl, uribl } = TEST_LIST_ZONES;
const lists: TestRecord[] = [
  // Spamhaus ZEN: .2 SBL, .4 XBL, .10/.11 PBL; .12 is on SBL and PBL at once; 127.255.255.x are refusals.
  [`${v4('127.0.0.2')}.${zen}`, 'A', '127.0.0.2'],
  [`${v4('127.0.0.4')}.${zen}`, 'A', '127.0.0.4'],
  [`${v4('127.0.0.10')}.${zen}`, 'A', '127.0.0.10'],
  [`${v4('127.0.0.11')}.${zen}`, 'A', '127.0.0.11'],
  [`${v4('127.0.0.12')}.${zen}`, 'A', '127.0.0.2'],
  [`${v4('127.0.0.12')}.${zen}`, 'A', '127.0.0.10'],
  [`${v4('127.0.0.252')}.${zen}`, 'A', '127.255.255.252'],
  [`${v4('127.0.0.254')}.${zen}`, 'A', '127.255.255.254'],
  [`${v4('127.0.0.255')}.${zen}`, 'A', '127.255.255.255'],
  [`${v4(AUDIT_SENDING_IPS.pbl)}.${zen}`, 'A', '127.0.0.10'],
  [`${v4(AUDIT_SENDING_IPS.sbl)}.${zen}`, 'A', '127.0.0.2'],
  [`${v4(AUDIT_SENDING_IPS.refused)}.${zen}`, 'A', '127.255.255.254'],
  [`${v6('2')}.${zen}`, 'A', '127.0.0.2'],
  [`${v6('a')}.${zen}`, 'A', '127.0.0.10'],
  // Spamhaus DBL: 127.0.1.x listings, 127.0.1.255 (an IP asked of a domain list) and 127.255.255.x refusals.
  [`dbl-listed.test.${dbl}`, 'A', '127.0.1.2'],
  [`dbl-phish.test.${dbl}`, 'A', '127.0.1.4'],
  [`dbl-abused.test.${dbl}`, 'A', '127.0.1.102'],
  [`dbl-refused.test.${dbl}`, 'A', '127.255.255.254'],
  [`dbl-excess.test.${dbl}`, 'A', '127.255.255.255'],
  [`dbl-ipquery.test.${dbl}`, 'A', '127.0.1.255'],
  // Each domain list's own listed test name (RFC 5782 section 5; `invalid` is on none): a list that does not answer
  // them is not checked. The IP lists' 127.0.0.2 is listed above and below, 127.0.0.1 on none.
  [`dbltest.com.${dbl}`, 'A', '127.0.1.2'],
  [`test.surbl.org.${surbl}`, 'A', '127.0.0.88'],
  [`test.uribl.com.${uribl}`, 'A', '127.0.0.14'],
  [`${v4('127.0.0.2')}.${spamcop}`, 'A', '127.0.0.2'],
  [`${v4('127.0.0.2')}.${barracuda}`, 'A', '127.0.0.2'],
  // SURBL multi: a bitmask in the last octet (8 PH, 16 MW, 64 ABUSE, 128 CR); 127.0.0.1 means the querier is blocked.
  [`surbl-phish.test.${surbl}`, 'A', '127.0.0.8'],
  [`surbl-mw-abuse.test.${surbl}`, 'A', '127.0.0.80'],
  [`surbl-refused.test.${surbl}`, 'A', '127.0.0.1'],
  // URIBL multi: 2 black, 4 grey, 8 red; 127.0.0.1 means the query was refused.
  [`uribl-black.test.${uribl}`, 'A', '127.0.0.2'],
  [`uribl-grey.test.${uribl}`, 'A', '127.0.0.4'],
  [`uribl-refused.test.${uribl}`, 'A', '127.0.0.1'],
];

export const TEST_RECORDS: readonly TestRecord[] = [...senders, ...lists];
