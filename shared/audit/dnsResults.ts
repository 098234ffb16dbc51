// Owns the DNS side of one check's audit: every DNS module (SPF, DMARC and alignment, DKIM keys, MX, BIMI, reverse
// DNS, blocklists) run at once over the check's DNS, and what they found turned into findings, what they could not
// judge into "not checked", and the facts the bulk-sender rule sets read.
import { auditBimi } from './bimi';
import { blocklistOutcome, type ListOptions, listingsOf, MAX_LIST_DOMAINS } from './blocklists/listings';
import type { CheckDns } from './checkDns';
import { auditDkimKey } from './dkimKey';
import { auditAlignment, auditDmarc } from './dmarc';
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

export type DnsAuditOptions = ListOptions;

/** Bounds on what one copy may make the audit ask: its headers and links are the sender's to write. */
const MAX_DKIM_SIGNATURES = 4;

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

const UNVERIFIED =
  'the receiver wrote no Authentication-Results it is trusted for: alignment rests on those alone';

/**
 * Only what the receiver verified aligns: a DKIM-Signature it did not pass, or a Return-Path SPF did not pass for,
 * proves nothing (RFC 7489 section 3.1 aligns authenticated identifiers). Undefined where it cannot be judged.
 */
const alignmentOf = (subjects: DnsSubjects, dmarc: Awaited<ReturnType<typeof auditDmarc>> | undefined) => {
  const verified = subjects.verified ?? null;
  const from = subjects.fromDomain;
  if (!from || !dmarc || dmarc.judgement === 'unknown' || !verified) return undefined;
  return auditAlignment(
    {
      fromDomain: from,
      spfDomain: verified.spf[0],
      dkimDomains: verified.dkim.slice(0, MAX_DKIM_SIGNATURES),
    },
    dmarc.record,
  );
};

/** The record audits at once; BIMI waits for DMARC, which it needs at enforcement. */
const auditRecords = async (dns: CheckDns, subjects: DnsSubjects, signatures: DnsSubjects['dkim']) => {
  const { fromDomain: from, sendingIp: ip } = subjects;
  const spfDomain = subjects.returnPathDomain ?? from;
  const dmarcRun = from ? auditDmarc(dns, from) : undefined;
  const [spf, dmarc, mx, bimi, ptr, keys] = await Promise.all([
    spfDomain ? auditSpf(dns, spfDomain, ip) : undefined,
    dmarcRun,
    from ? auditMx(dns, from) : undefined,
    from && dmarcRun ? dmarcRun.then((result) => auditBimi(dns, from, result)) : undefined,
    ip ? auditPtr(dns, ip) : undefined,
    Promise.all(signatures.map((s) => auditDkimKey(dns, s.domain, s.selector))),
  ]);
  return { spf, dmarc, mx, bimi, ptr, keys };
};

type Records = Awaited<ReturnType<typeof auditRecords>>;
const all = 'all' as const;

/** Each record audit's finding or "not checked", under the ids the findings have always had. */
const recordOutcome = (
  outcome: Outcome,
  records: Records,
  from: string | undefined,
  ip: string | undefined,
) => {
  const { spf, dmarc, mx, bimi, ptr } = records;
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
      fix: `Have the owner of ${ip} set a PTR naming a host of yours that resolves back to ${ip}.`,
      mattersFor: all,
    });
};

const keyOutcome = (outcome: Outcome, keys: Records['keys'], signatures: DnsSubjects['dkim']) => {
  for (const [at, key] of keys.entries())
    judged(outcome, `dns.dkim-key.${signatures[at]?.selector}.${signatures[at]?.domain}`, key, {
      severity: key.bits !== undefined && key.bits >= 1024 ? 'medium' : 'high',
      fix: 'Publish a 2048-bit RSA key under a new selector and sign with it.',
      mattersFor: all,
    });
};

export { LISTING_ID_PREFIX } from './blocklists/listings';

/** Runs every DNS check of one copy at once; nothing here throws, every failure is a finding or a "not checked". */
export const auditDns = async (
  dns: CheckDns,
  subjects: DnsSubjects,
  options: DnsAuditOptions = {},
): Promise<DnsResults> => {
  const { fromDomain: from, sendingIp: ip } = subjects;
  const signatures = subjects.dkim.slice(0, MAX_DKIM_SIGNATURES);
  const [records, listings] = await Promise.all([
    auditRecords(dns, subjects, signatures),
    listingsOf(
      dns,
      ip,
      [from, subjects.returnPathDomain, ...signatures.map((s) => s.domain), ...subjects.linkDomains],
      options,
    ),
  ]);
  const { dmarc, ptr } = records;
  const alignment = alignmentOf(subjects, dmarc);
  const outcome: Outcome = { findings: [], notChecked: [] };
  if (!from) outcome.notChecked.push({ id: 'dns.from', why: 'no single From domain to look up' });
  if (!ip) outcome.notChecked.push({ id: 'dns.ptr', why: "the receiver's Received names no sending IP" });
  outcome.notChecked.push(...capsSkipped(subjects, listings.domainsOver));
  if (from && dmarc && dmarc.judgement !== 'unknown' && !subjects.verified)
    outcome.notChecked.push({ id: 'dns.dmarc-alignment', why: UNVERIFIED });
  recordOutcome(outcome, records, from, ip);
  if (alignment)
    judged(outcome, 'dns.dmarc-alignment', alignment, {
      severity: 'high',
      fix: `Sign with DKIM d=${from} or send with a Return-Path in ${from}, so DMARC can pass.`,
      mattersFor: all,
    });
  keyOutcome(outcome, records.keys, signatures);
  blocklistOutcome(outcome, listings.results);
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
      dmarc?.judgement === 'unknown' ? dmarc.reason : from ? UNVERIFIED : noFrom,
    ),
    fcrdns: factOf(ptr, "the receiver's Received names no sending IP"),
  };
};
