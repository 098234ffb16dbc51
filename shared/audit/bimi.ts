// Owns the BIMI record audit (the AuthIndicators working group's BIMI draft, section 4): default._bimi at the From
// domain or its organizational domain, v=BIMI1 with an https logo (l=) and optionally a mark certificate (a=).
// Optional for delivery: the verdict weighs it as such.
import type { CheckDns } from './checkDns';
import { organizationalDomain } from './dmarc';
import { type DnsJudgement, MAX_RECORD_CHARS, recordsOf, tagList } from './dnsJudgement';

const SOURCE = 'draft-brand-indicators-for-message-identification (BIMI), section 4';

export interface BimiAudit extends DnsJudgement {
  logo: string | undefined;
  certificate: string | undefined;
}

const recordAt = async (dns: CheckDns, domain: string) => {
  const answer = await dns.lookup(`default._bimi.${domain}`, 'TXT');
  if (answer.kind === 'unknown') return answer;
  return {
    kind: 'found' as const,
    records: (recordsOf(answer) ?? []).filter((text) => /^v=BIMI1(;|$)/i.test(text)),
  };
};

export const auditBimi = async (dns: CheckDns, fromDomain: string): Promise<BimiAudit> => {
  const none = { logo: undefined, certificate: undefined, source: SOURCE };
  let found = await recordAt(dns, fromDomain);
  const org = organizationalDomain(fromDomain);
  if (found.kind === 'found' && found.records.length === 0 && org !== fromDomain)
    found = await recordAt(dns, org);
  if (found.kind === 'unknown') return { ...none, judgement: 'unknown', reason: found.reason };
  if (found.records.length !== 1)
    return {
      ...none,
      judgement: 'fail',
      reason: `${fromDomain} publishes ${found.records.length === 0 ? 'no' : 'more than one'} BIMI record`,
    };
  const tags = tagList((found.records[0] ?? '').slice(0, MAX_RECORD_CHARS));
  const logo = tags.get('l') || undefined;
  const certificate = tags.get('a') || undefined;
  if (!logo?.startsWith('https://'))
    return { ...none, certificate, judgement: 'fail', reason: 'the BIMI record has no https logo (l=)' };
  const mark = certificate ? ' with a mark certificate' : ', without a mark certificate (a=)';
  return { logo, certificate, source: SOURCE, judgement: 'pass', reason: `BIMI logo ${logo}${mark}` };
};
