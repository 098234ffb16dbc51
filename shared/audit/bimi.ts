// Owns the BIMI record audit (the AuthIndicators working group's BIMI draft, sections 4 and 7): default._bimi at the
// From domain or its organizational domain, v=BIMI1 (spaces around "=" allowed, as in any tag-list) with an https
// logo (l=) and optionally a mark certificate (a=); an empty l= and a= decline BIMI on purpose. Receivers show a logo
// only when DMARC is at enforcement (p=quarantine or reject, on all mail), so without it the record does nothing.
// Optional for delivery: the verdict weighs it as such.
import type { CheckDns } from './checkDns';
import { type DmarcAudit, organizationalDomain } from './dmarc';
import { type DnsJudgement, MAX_RECORD_CHARS, recordsOf, tagList } from './dnsJudgement';

const SOURCE = 'draft-brand-indicators-for-message-identification (BIMI), sections 4 and 7';

export interface BimiAudit extends DnsJudgement {
  logo: string | undefined;
  certificate: string | undefined;
}

const recordAt = async (dns: CheckDns, domain: string) => {
  const answer = await dns.lookup(`default._bimi.${domain}`, 'TXT');
  if (answer.kind === 'unknown') return answer;
  return {
    kind: 'found' as const,
    records: (recordsOf(answer) ?? []).filter((text) => /^v\s*=\s*BIMI1\s*(;|$)/i.test(text)),
  };
};

/** Why a logo would not be shown for want of DMARC at enforcement; undefined when DMARC is there. */
const dmarcShortfall = (dmarc: DmarcAudit): string | undefined => {
  if (dmarc.judgement === 'pass') return undefined;
  return `receivers show no BIMI logo without DMARC at enforcement (${dmarc.reason})`;
};

export const auditBimi = async (dns: CheckDns, fromDomain: string, dmarc: DmarcAudit): Promise<BimiAudit> => {
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
  if (logo === undefined && certificate === undefined)
    return { ...none, judgement: 'pass', reason: `${fromDomain} declines BIMI on purpose (empty l=)` };
  if (!logo?.startsWith('https://'))
    return { ...none, certificate, judgement: 'fail', reason: 'the BIMI record has no https logo (l=)' };
  if (dmarc.judgement === 'unknown') return { ...none, judgement: 'unknown', reason: dmarc.reason };
  const shortfall = dmarcShortfall(dmarc);
  if (shortfall !== undefined)
    return { logo, certificate, source: SOURCE, judgement: 'fail', reason: shortfall };
  const mark = certificate ? ' with a mark certificate' : ', without a mark certificate (a=)';
  return { logo, certificate, source: SOURCE, judgement: 'pass', reason: `BIMI logo ${logo}${mark}` };
};
