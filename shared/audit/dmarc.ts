// Owns the DMARC audit (RFC 7489, with DMARCbis's np=, psd= and t=): the From domain's record found as section 6.6.3
// says (at _dmarc.<domain>; only when there is none, at its organizational domain by the Public Suffix List, private
// section included; two records, or a record with neither a valid p= nor a reporting URI, mean no DMARC at all), its
// policy, pct and rua; and whether the From domain aligns with the SPF or DKIM domain (section 3.1).
import { getDomain } from 'tldts';
import type { CheckDns } from './checkDns';
import { type DnsJudgement, MAX_RECORD_CHARS, recordsOf, tagList } from './dnsJudgement';

const SOURCE = 'RFC 7489 (DMARC), sections 3.1, 6.3 and 6.6.3; draft-ietf-dmarc-dmarcbis (np, psd, t)';

export type DmarcPolicy = 'none' | 'quarantine' | 'reject';
type Mode = 'r' | 's';

export interface DmarcRecord {
  /** Where the record was found: the From domain itself or its organizational domain. */
  at: string;
  policy: DmarcPolicy;
  subdomainPolicy: DmarcPolicy | undefined;
  /** DMARCbis np=: the policy for subdomains that do not exist. */
  nonexistentPolicy: DmarcPolicy | undefined;
  pct: number;
  rua: string[];
  adkim: Mode;
  aspf: Mode;
  /** DMARCbis t=y: testing, receivers apply a policy one step milder. */
  testing: boolean;
  /** DMARCbis psd=: y for a public suffix operator's record, n for an organizational domain's. */
  psd: 'y' | 'n' | 'u' | undefined;
  /** Why the policy is p=none though the record does not say so (section 6.6.3 step 6). */
  impliedNone: string | undefined;
}

export interface DmarcAudit extends DnsJudgement {
  record: DmarcRecord | undefined;
}

/** The organizational domain (RFC 7489 section 3.2): the registrable domain by the whole Public Suffix List. */
export const organizationalDomain = (domain: string): string => {
  const plain = domain.toLowerCase().replace(/\.$/, '');
  return getDomain(plain, { allowPrivateDomains: true }) ?? plain;
};

const policyOf = (value: string | undefined): DmarcPolicy | undefined => {
  const lower = value?.toLowerCase();
  return lower === 'none' || lower === 'quarantine' || lower === 'reject' ? lower : undefined;
};

/** A reporting URI as section 6.4 allows it (mailto:, or https: as some use), optionally with a size limit. */
const REPORT_URI = /^(?:mailto:[^\s@]+@[^\s@!]+|https?:\/\/[^\s!]+)(?:![0-9]+[kmgt]?)?$/i;

/** A DMARC record's tags; the reason it applies no policy when it cannot (section 6.6.3 step 6). */
const parseDmarc = (text: string, at: string): DmarcRecord | { invalid: string } => {
  const tags = tagList(text.slice(0, MAX_RECORD_CHARS));
  const rua = (tags.get('rua') ?? '')
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => REPORT_URI.test(uri))
    .slice(0, 8);
  const policy = policyOf(tags.get('p'));
  const sp = tags.get('sp');
  const np = tags.get('np');
  // Section 6.6.3 step 6 names p= and sp=; DMARCbis's np= with a bad value is ignored, as unknown values are.
  const broken =
    policy === undefined
      ? `${tags.has('p') ? `p=${tags.get('p')?.slice(0, 20)} is not a policy` : 'it has no p='}`
      : sp !== undefined && policyOf(sp) === undefined
        ? `sp=${sp.slice(0, 20)} is not a policy`
        : undefined;
  if (broken !== undefined && rua.length === 0)
    return {
      invalid: `the DMARC record at _dmarc.${at}: ${broken} and it names no rua=, so receivers apply no DMARC`,
    };
  const pctText = tags.get('pct');
  const pct = pctText !== undefined && /^\d{1,3}$/.test(pctText) ? Math.min(100, Number(pctText)) : 100;
  const mode = (value: string | undefined): Mode => (value?.toLowerCase() === 's' ? 's' : 'r');
  const psd = tags.get('psd')?.toLowerCase();
  return {
    at,
    policy: broken === undefined && policy ? policy : 'none',
    subdomainPolicy: broken === undefined ? policyOf(sp) : undefined,
    nonexistentPolicy: broken === undefined ? policyOf(np) : undefined,
    pct,
    rua,
    adkim: mode(tags.get('adkim')),
    aspf: mode(tags.get('aspf')),
    testing: tags.get('t')?.toLowerCase() === 'y',
    psd: psd === 'y' || psd === 'n' || psd === 'u' ? psd : undefined,
    impliedNone: broken === undefined ? undefined : `${broken}; with rua= it counts as p=none`,
  };
};

/** The DMARC records at one name: TXT records whose first tag is v=DMARC1 (section 6.6.3 steps 1 and 2). */
const recordsAt = async (dns: CheckDns, domain: string) => {
  const answer = await dns.lookup(`_dmarc.${domain}`, 'TXT');
  if (answer.kind === 'unknown') return answer;
  const texts = (recordsOf(answer) ?? []).filter((text) => /^v\s*=\s*DMARC1\s*(;|$)/.test(text));
  return { kind: 'found' as const, at: domain, texts };
};

/** Section 6.6.3: the From domain's records; only when there are none, the organizational domain's. */
const discover = async (dns: CheckDns, domain: string) => {
  const found = await recordsAt(dns, domain);
  const org = organizationalDomain(domain);
  if (found.kind === 'found' && found.texts.length === 0 && org !== domain) return recordsAt(dns, org);
  return found;
};

const fail = (reason: string, record?: DmarcRecord): DmarcAudit => ({
  judgement: 'fail',
  reason,
  record,
  source: SOURCE,
});

/** What falls short of enforcement on every message. */
const shortfalls = (record: DmarcRecord, policy: DmarcPolicy): string[] => {
  const problems: string[] = [];
  if (record.impliedNone) problems.push(record.impliedNone);
  else if (policy === 'none') problems.push('p=none: receivers are asked to take no action on failing mail');
  if (policy !== 'none' && record.pct < 100)
    problems.push(`pct=${record.pct}: the policy applies to part of the mail`);
  if (policy !== 'none' && record.testing) problems.push('t=y: testing, receivers apply a milder policy');
  return problems;
};

/** DMARCbis: a name for which A, AAAA and MX all answer NXDOMAIN does not exist. */
const nonexistent = async (dns: CheckDns, domain: string) =>
  (await Promise.all((['A', 'AAAA', 'MX'] as const).map((type) => dns.lookup(domain, type)))).every(
    (answer) => answer.kind === 'none' && answer.reason === 'nxdomain',
  );

/** The policy for the From domain: its own p=; a subdomain without a record gets sp= (or p=), np= if it does not exist. */
const policyFor = async (dns: CheckDns, domain: string, record: DmarcRecord): Promise<DmarcPolicy> => {
  if (record.at === domain) return record.policy;
  if (record.nonexistentPolicy !== undefined && (await nonexistent(dns, domain)))
    return record.nonexistentPolicy;
  return record.subdomainPolicy ?? record.policy;
};

/** The DMARC audit of the From domain: published at enforcement on every message, or what falls short. */
export const auditDmarc = async (dns: CheckDns, fromDomain: string): Promise<DmarcAudit> => {
  const domain = fromDomain.toLowerCase().replace(/\.$/, '');
  const found = await discover(dns, domain);
  if (found.kind === 'unknown')
    return { judgement: 'unknown', reason: found.reason, record: undefined, source: SOURCE };
  if (found.texts.length === 0) return fail(`${domain} publishes no DMARC record`);
  if (found.texts.length > 1)
    return fail(`_dmarc.${found.at} holds ${found.texts.length} DMARC records, so receivers apply no DMARC`);
  const record = parseDmarc(found.texts[0] ?? '', found.at);
  if ('invalid' in record) return fail(record.invalid);
  const policy = await policyFor(dns, domain, record);
  const problems = shortfalls(record, policy);
  const rua = record.rua.length > 0 ? '' : ' (no rua=: no aggregate reports)';
  if (problems.length > 0) return fail(`DMARC of ${domain}: ${problems.join('; ')}${rua}`, record);
  return { judgement: 'pass', reason: `DMARC of ${domain}: p=${policy}${rua}`, record, source: SOURCE };
};

/** Whether the From domain aligns with an authenticated domain under the mode (section 3.1.1, 3.1.2). */
export const aligned = (fromDomain: string, authDomain: string, mode: Mode): boolean => {
  const from = fromDomain.toLowerCase().replace(/\.$/, '');
  const auth = authDomain.toLowerCase().replace(/\.$/, '');
  return mode === 's' ? from === auth : organizationalDomain(from) === organizationalDomain(auth);
};

export interface AlignmentInput {
  fromDomain: string;
  /** The domain SPF authenticated (the Return-Path's), when SPF passed. */
  spfDomain: string | undefined;
  /** The d= of each DKIM signature that verified. */
  dkimDomains: readonly string[];
}

/** DMARC alignment of the From domain with SPF's or DKIM's, per the record's aspf= and adkim= (relaxed by default). */
export const auditAlignment = (input: AlignmentInput, record: DmarcRecord | undefined): DnsJudgement => {
  const aspf = record?.aspf ?? 'r';
  const adkim = record?.adkim ?? 'r';
  const spf = input.spfDomain !== undefined && aligned(input.fromDomain, input.spfDomain, aspf);
  const dkim = input.dkimDomains.find((domain) => aligned(input.fromDomain, domain, adkim));
  const modes = `aspf=${aspf}, adkim=${adkim}`;
  if (spf || dkim !== undefined)
    return {
      judgement: 'pass',
      reason: `From ${input.fromDomain} aligns with ${dkim !== undefined ? `DKIM d=${dkim}` : `SPF ${input.spfDomain}`} (${modes})`,
      source: SOURCE,
    };
  const tried = [input.spfDomain && `SPF ${input.spfDomain}`, ...input.dkimDomains.map((d) => `DKIM d=${d}`)]
    .filter(Boolean)
    .join(', ');
  return {
    judgement: 'fail',
    reason: `From ${input.fromDomain} aligns with no authenticated domain (${tried || 'none passed'}; ${modes})`,
    source: SOURCE,
  };
};
