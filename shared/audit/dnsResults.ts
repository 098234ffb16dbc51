// Owns the DNS side of one check's audit: every DNS module (SPF, DMARC and alignment, DKIM keys, MX, BIMI, reverse
// DNS, blocklists) run at once over the check's DNS, and what they found turned into findings, what they could not
// judge into "not checked", and the facts the bulk-sender rule sets read.
import { auditBimi } from './bimi';
import {
  type BlocklistResult,
  checkBlocklist,
  type DnsBlocklist,
  type ListZoneSettings,
} from './blocklists/blocklist';
import { DOMAIN_BLOCKLISTS, IP_BLOCKLISTS } from './blocklists/defaultBlocklists';
import type { CheckDns } from './checkDns';
import { auditDkimKey } from './dkimKey';
import { auditAlignment, auditDmarc, organizationalDomain } from './dmarc';
import type { DnsJudgement } from './dnsJudgement';
import { auditMx } from './mx';
import { auditPtr } from './ptr';
import { auditSpf } from './spf';
import type { DnsFact, DnsResults, Finding, NotChecked, Severity, VerifiedDomains } from './types';

/** What the DNS side asks about, all read from the receiver's side of one copy or its headers. */
export interface DnsSubjects {
  fromDomain: string | undefined;
  /** The Return-Path's domain: the domain SPF authenticates. */
  returnPathDomain: string | undefined;
  /** Each DKIM-Signature's d= and s=. */
  dkim: readonly { domain: string; selector: string }[];
  linkDomains: readonly string[];
  /** The IP that handed the message to the receiver, from the receiver's own Received. */
  sendingIp: string | undefined;
  /** Distinct link domains past the cap of those handed over: not asked of the domain lists. */
  linkDomainsOverCap?: number | undefined;
  /** The domains the receiver verified (CopyFacts.verified): alignment rests on these alone; null: none written. */
  verified?: VerifiedDomains | null | undefined;
}

export interface DnsAuditOptions {
  ipLists?: readonly DnsBlocklist[];
  domainLists?: readonly DnsBlocklist[];
  /** Per list id: another zone (a mirror; the test zones). */
  zones?: Readonly<Record<string, string>>;
  spamhausDqsKey?: string | undefined;
}

/** Bounds on what one copy may make the audit ask: its headers and links are the sender's to write. */
const MAX_DKIM_SIGNATURES = 4;
const MAX_LIST_DOMAINS = 10;

interface Outcome {
  findings: Finding[];
  notChecked: NotChecked[];
}

const judged = (
  outcome: Outcome,
  id: string,
  result: DnsJudgement,
  finding: Omit<Finding, 'id' | 'title' | 'source'>,
) => {
  if (result.judgement === 'fail')
    outcome.findings.push({ id, title: result.reason, source: result.source, ...finding });
  if (result.judgement === 'unknown') outcome.notChecked.push({ id, why: result.reason });
};

const factOf = (result: DnsJudgement | undefined, missing: string): DnsFact => {
  if (result === undefined) return { state: 'unknown', why: missing };
  if (result.judgement === 'unknown') return { state: 'unknown', why: result.reason };
  return { state: 'known', value: result.judgement === 'pass' };
};

/** What a listing asks the sender to do: a dynamic range (PBL), a spam source or hijacked host, or a listed domain. */
const listingFinding = (result: BlocklistResult): Omit<Finding, 'id' | 'title' | 'source'> => {
  const mattersFor = 'all' as const;
  if (result.families.includes('pbl') && result.families.length === 1)
    return {
      severity: 'high',
      fix: `Send through your provider's mail servers instead of directly from ${result.subject}, an end-user address range.`,
      mattersFor,
    };
  if (result.families.includes('xbl'))
    return {
      severity: 'critical',
      fix: `Find and clean the compromised host sending from ${result.subject}, then request removal from the list.`,
      mattersFor,
    };
  // Spamhaus's abused-legit codes list a good site someone broke into: the fix is cleaning it, not leaving it.
  if (result.families.length > 0 && result.families.every((family) => family === 'dbl-abused'))
    return {
      severity: 'high',
      fix: `Have the compromised site at ${result.subject} cleaned (its owner or host), then request removal from the list.`,
      mattersFor,
    };
  if (result.families.length > 0 && result.families.every((family) => family === 'uribl-grey'))
    return {
      severity: 'low',
      fix: `Check that ${result.subject} sends only mail recipients asked for; URIBL grey lists bulk senders, not spam domains.`,
      mattersFor,
    };
  if (result.families.some((family) => family === 'dbl' || family === 'surbl' || family === 'uribl'))
    return {
      severity: 'high',
      fix: `Stop linking to ${result.subject} (or get it cleaned up and delisted): receivers judge mail by its domains.`,
      mattersFor,
    };
  return {
    severity: 'critical',
    fix: `Stop the spam coming from ${result.subject} and request removal from the list once it has stopped.`,
    mattersFor,
  };
};

/** What every blocklist finding's id starts with: a listing is a finding, a refusal or timeout a "not checked". */
export const LISTING_ID_PREFIX = 'blocklist.';

const blocklistOutcome = (outcome: Outcome, results: BlocklistResult[]) => {
  for (const result of results) {
    const id = `${LISTING_ID_PREFIX}${result.list}.${result.subject}`;
    if (result.judgement === 'fail')
      outcome.findings.push({ id, title: result.reason, source: result.source, ...listingFinding(result) });
    if (result.judgement === 'unknown') outcome.notChecked.push({ id, why: result.reason });
  }
};

const severity = (spfOrDmarc: DnsJudgement, severe: Severity, mild: Severity) =>
  /no (SPF|DMARC) record|permerror|\+all/.test(spfOrDmarc.reason) ? severe : mild;

/** What a cap left out: each is a "not checked", so the score says it is partial (never 10/10 of a part). */
const capsSkipped = (subjects: DnsSubjects, domainsOver: number): NotChecked[] => {
  const skipped: NotChecked[] = [];
  const over = domainsOver + (subjects.linkDomainsOverCap ?? 0);
  if (over > 0)
    skipped.push({
      id: 'dns.list-domains',
      why: `${over} more domain(s) past the cap of ${MAX_LIST_DOMAINS} were not asked of the domain lists`,
    });
  if (subjects.dkim.length > MAX_DKIM_SIGNATURES)
    skipped.push({
      id: 'dns.dkim-signatures',
      why: `${subjects.dkim.length - MAX_DKIM_SIGNATURES} DKIM key(s) past the first ${MAX_DKIM_SIGNATURES} were not looked up`,
    });
  return skipped;
};

/** Runs every DNS check of one copy at once; nothing here throws, every failure is a finding or a "not checked". */
export const auditDns = async (
  dns: CheckDns,
  subjects: DnsSubjects,
  options: DnsAuditOptions = {},
): Promise<DnsResults> => {
  const settings = (list: DnsBlocklist): ListZoneSettings => ({
    zone: options.zones?.[list.id],
    spamhausDqsKey: options.spamhausDqsKey,
  });
  const from = subjects.fromDomain;
  const spfDomain = subjects.returnPathDomain ?? from;
  const signatures = subjects.dkim.slice(0, MAX_DKIM_SIGNATURES);
  const allListDomains = [
    ...new Set(
      [from, subjects.returnPathDomain, ...signatures.map((s) => s.domain), ...subjects.linkDomains]
        .filter((domain): domain is string => domain !== undefined)
        .map(organizationalDomain),
    ),
  ];
  const listDomains = allListDomains.slice(0, MAX_LIST_DOMAINS);
  const ip = subjects.sendingIp;
  const [spf, dmarc, mx, bimi, ptr, keys, ipListings, domainListings] = await Promise.all([
    spfDomain ? auditSpf(dns, spfDomain) : undefined,
    from ? auditDmarc(dns, from) : undefined,
    from ? auditMx(dns, from) : undefined,
    from ? auditBimi(dns, from) : undefined,
    ip ? auditPtr(dns, ip) : undefined,
    Promise.all(signatures.map((s) => auditDkimKey(dns, s.domain, s.selector))),
    ip
      ? Promise.all(
          (options.ipLists ?? IP_BLOCKLISTS).map((list) => checkBlocklist(dns, list, ip, settings(list))),
        )
      : [],
    Promise.all(
      listDomains.flatMap((domain) =>
        (options.domainLists ?? DOMAIN_BLOCKLISTS).map((list) =>
          checkBlocklist(dns, list, domain, settings(list)),
        ),
      ),
    ),
  ]);
  // Only what the receiver verified aligns: a DKIM-Signature it did not pass, or a Return-Path SPF did not pass for,
  // proves nothing (RFC 7489 section 3.1 aligns authenticated identifiers).
  const verified = subjects.verified ?? null;
  const alignment =
    from && dmarc && dmarc.judgement !== 'unknown' && verified
      ? auditAlignment(
          {
            fromDomain: from,
            spfDomain: verified.spf[0],
            dkimDomains: verified.dkim.slice(0, MAX_DKIM_SIGNATURES),
          },
          dmarc.record,
        )
      : undefined;
  const unverified =
    'the receiver wrote no Authentication-Results it is trusted for: alignment rests on those alone';
  const outcome: Outcome = { findings: [], notChecked: [] };
  if (!from) outcome.notChecked.push({ id: 'dns.from', why: 'no single From domain to look up' });
  if (!ip) outcome.notChecked.push({ id: 'dns.ptr', why: "the receiver's Received names no sending IP" });
  outcome.notChecked.push(...capsSkipped(subjects, allListDomains.length - listDomains.length));
  if (from && dmarc && dmarc.judgement !== 'unknown' && !verified)
    outcome.notChecked.push({ id: 'dns.dmarc-alignment', why: unverified });
  const all = 'all' as const;
  if (spf)
    judged(outcome, 'dns.spf', spf, {
      severity: severity(spf, 'high', 'medium'),
      fix: 'Publish one SPF record listing your senders, within 10 DNS lookups and 2 void lookups, ending in ~all or -all.',
      mattersFor: all,
    });
  if (dmarc)
    judged(outcome, 'dns.dmarc', dmarc, {
      severity: severity(dmarc, 'high', 'medium'),
      fix: `Publish a DMARC record at _dmarc.${from} and move to p=quarantine or p=reject once its reports show your mail aligned.`,
      mattersFor: all,
    });
  if (alignment)
    judged(outcome, 'dns.dmarc-alignment', alignment, {
      severity: 'high',
      fix: `Sign with DKIM d=${from} or send with a Return-Path in ${from}, so DMARC can pass.`,
      mattersFor: all,
    });
  for (const [at, key] of keys.entries())
    judged(outcome, `dns.dkim-key.${signatures[at]?.selector}.${signatures[at]?.domain}`, key, {
      severity: key.bits !== undefined && key.bits >= 1024 ? 'medium' : 'high',
      fix: 'Publish a 2048-bit RSA key under a new selector and sign with it.',
      mattersFor: all,
    });
  if (mx)
    judged(outcome, 'dns.mx', mx, {
      severity: 'low',
      fix: `Publish an MX record for ${from} so replies and bounces reach you.`,
      mattersFor: all,
    });
  if (bimi)
    judged(outcome, 'dns.bimi', bimi, {
      severity: 'info',
      fix: `Publish a BIMI record at default._bimi.${from} with an https SVG logo, once DMARC is at enforcement.`,
      mattersFor: ['gmail', 'yahoo', 'aol', 'icloud'],
    });
  if (ptr)
    judged(outcome, 'dns.ptr', ptr, {
      severity: 'high',
      fix: `Have the owner of ${ip} set a PTR naming a host that resolves back to ${ip}.`,
      mattersFor: all,
    });
  blocklistOutcome(outcome, [...ipListings, ...domainListings]);
  const noFrom = 'no single From domain to look up';
  return {
    ...outcome,
    dmarcPublished:
      dmarc?.judgement === 'unknown'
        ? factOf(dmarc, noFrom)
        : dmarc
          ? { state: 'known', value: dmarc.record !== undefined }
          : factOf(undefined, noFrom),
    dmarcAligned: factOf(
      alignment,
      dmarc?.judgement === 'unknown' ? dmarc.reason : from ? unverified : noFrom,
    ),
    fcrdns: factOf(ptr, "the receiver's Received names no sending IP"),
  };
};
