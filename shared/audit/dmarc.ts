// Owns the DMARC audit (RFC 7489): the From domain's record, found at _dmarc.<domain> or else at its organizational
// domain (section 6.6.3, via the Public Suffix List), its policy, pct and rua; and whether the From domain aligns
// with the SPF or DKIM domain, relaxed or strict as the record says (section 3.1).
import { getDomain } from 'tldts';
import type { CheckDns } from './checkDns';
import { type DnsJudgement, MAX_RECORD_CHARS, recordsOf, tagList } from './dnsJudgement';

const SOURCE = 'RFC 7489 (DMARC), sections 3.1, 6.3 and 6.6.3';

export type DmarcPolicy = 'none' | 'quarantine' | 'reject';
type Mode = 'r' | 's';

export interface DmarcRecord {
  /** Where the record was found: the From domain itself or its organizational domain. */
  at: string;
  policy: DmarcPolicy;
  subdomainPolicy: DmarcPolicy | undefined;
  pct: number;
  rua: string[];
  adkim: Mode;
  aspf: Mode;
}

export interface DmarcAudit extends DnsJudgement {
  record: DmarcRecord | undefined;
}

/** The organizational domain (RFC 7489 section 3.2): the registrable domain by the Public Suffix List's ICANN rules. */
export const organizationalDomain = (domain: string): string => {
  const plain = domain.toLowerCase().replace(/\.$/, '');
  return getDomain(plain) ?? plain;
};

const policyOf = (value: string | undefined): DmarcPolicy | undefined => {
  const lower = value?.toLowerCase();
  return lower === 'none' || lower === 'quarantine' || lower === 'reject' ? lower : undefined;
};

/** A DMARC record's tags; undefined when it is not one (v=DMARC1 first, a valid p=). */
const parseDmarc = (text: string, at: string): DmarcRecord | undefined => {
  if (!/^v\s*=\s*DMARC1\s*(;|$)/.test(text)) return undefined;
  const tags = tagList(text.slice(0, MAX_RECORD_CHARS));
  const policy = policyOf(tags.get('p'));
  if (!policy) return undefined;
  const pctText = tags.get('pct');
  const pct = pctText !== undefined && /^\d{1,3}$/.test(pctText) ? Math.min(100, Number(pctText)) : 100;
  const rua = (tags.get('rua') ?? '')
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '')
    .slice(0, 8);
  const mode = (value: string | undefined): Mode => (value?.toLowerCase() === 's' ? 's' : 'r');
  return {
    at,
    policy,
    subdomainPolicy: policyOf(tags.get('sp')),
    pct,
    rua,
    adkim: mode(tags.get('adkim')),
    aspf: mode(tags.get('aspf')),
  };
};

const recordAt = async (dns: CheckDns, domain: string) => {
  const answer = await dns.lookup(`_dmarc.${domain}`, 'TXT');
  if (answer.kind === 'unknown') return answer;
  const records = (recordsOf(answer) ?? []).filter((text) => /^v\s*=\s*DMARC1\b/.test(text));
  // More than one record, or none: no DMARC record here (section 6.6.3 step 5).
  return {
    kind: 'found' as const,
    record: records.length === 1 ? parseDmarc(records[0] ?? '', domain) : undefined,
  };
};

/** The DMARC audit of the From domain: published at enforcement on every message, or what falls short. */
export const auditDmarc = async (dns: CheckDns, fromDomain: string): Promise<DmarcAudit> => {
  const domain = fromDomain.toLowerCase().replace(/\.$/, '');
  let found = await recordAt(dns, domain);
  const org = organizationalDomain(domain);
  if (found.kind === 'found' && found.record === undefined && org !== domain)
    found = await recordAt(dns, org);
  if (found.kind === 'unknown')
    return { judgement: 'unknown', reason: found.reason, record: undefined, source: SOURCE };
  const record = found.record;
  if (!record)
    return {
      judgement: 'fail',
      reason: `${domain} publishes no DMARC record`,
      record: undefined,
      source: SOURCE,
    };
  // A subdomain without a record of its own gets the organizational record's sp= (or its p=).
  const policy = record.at !== domain ? (record.subdomainPolicy ?? record.policy) : record.policy;
  const problems: string[] = [];
  if (policy === 'none') problems.push('p=none: receivers are asked to take no action on failing mail');
  if (policy !== 'none' && record.pct < 100)
    problems.push(`pct=${record.pct}: the policy applies to part of the mail`);
  const rua = record.rua.length > 0 ? '' : ' (no rua=: no aggregate reports)';
  if (problems.length > 0)
    return {
      judgement: 'fail',
      reason: `DMARC of ${domain}: ${problems.join('; ')}${rua}`,
      record,
      source: SOURCE,
    };
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
