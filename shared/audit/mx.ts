// Owns the MX audit of the From domain (RFC 5321 section 5.1, RFC 7505): a domain that receives no mail cannot take
// replies or bounces, and receivers check for it. No MX but an address record is an implicit MX (mail goes to the
// domain itself); a null MX says "no mail" on purpose, and beside another MX it is an error.
import type { CheckDns } from './checkDns';
import type { DnsJudgement } from './dnsJudgement';

const SOURCE = 'RFC 5321 section 5.1 (implicit MX), RFC 7505 (null MX)';

export interface MxAudit extends DnsJudgement {
  hosts: string[];
}

/** No MX: the domain's own A or AAAA record is its mail host (RFC 5321 section 5.1). */
const implicitMx = async (dns: CheckDns, domain: string): Promise<MxAudit> => {
  const [a, aaaa] = await Promise.all([dns.lookup(domain, 'A'), dns.lookup(domain, 'AAAA')]);
  if (a.kind === 'records' || aaaa.kind === 'records')
    return {
      judgement: 'pass',
      reason: `${domain} has no MX record, so mail goes to its address record (implicit MX)`,
      hosts: [domain],
      source: SOURCE,
    };
  const unknown = a.kind === 'unknown' ? a : aaaa.kind === 'unknown' ? aaaa : undefined;
  if (unknown) return { judgement: 'unknown', reason: unknown.reason, hosts: [], source: SOURCE };
  return {
    judgement: 'fail',
    reason: `${domain} has no MX record and no address record: it receives no replies`,
    hosts: [],
    source: SOURCE,
  };
};

export const auditMx = async (dns: CheckDns, domain: string): Promise<MxAudit> => {
  const answer = await dns.lookup(domain, 'MX');
  if (answer.kind === 'unknown')
    return { judgement: 'unknown', reason: answer.reason, hosts: [], source: SOURCE };
  if (answer.kind === 'none') return implicitMx(dns, domain);
  const hosts = [...answer.records]
    .sort((a, b) => a.priority - b.priority)
    .map((record) => record.exchange.replace(/\.$/, ''))
    .slice(0, 10);
  const fail = (reason: string): MxAudit => ({ judgement: 'fail', reason, hosts: [], source: SOURCE });
  if (hosts.includes('') && answer.records.length > 1)
    return fail(`${domain} publishes a null MX beside other MX records, which RFC 7505 forbids`);
  if (hosts.length === 1 && hosts[0] === '') return fail(`${domain} publishes a null MX: it accepts no mail`);
  return {
    judgement: 'pass',
    reason: `${domain} receives mail at ${hosts.join(', ')}`,
    hosts,
    source: SOURCE,
  };
};
