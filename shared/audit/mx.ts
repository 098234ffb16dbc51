// Owns the MX audit of the From domain (RFC 5321 section 5.1, RFC 7505): a domain that receives no mail cannot take
// replies or bounces, and receivers check for it; a null MX says so on purpose.
import type { CheckDns } from './checkDns';
import type { DnsJudgement } from './dnsJudgement';

const SOURCE = 'RFC 5321 section 5.1, RFC 7505 (null MX)';

export interface MxAudit extends DnsJudgement {
  hosts: string[];
}

export const auditMx = async (dns: CheckDns, domain: string): Promise<MxAudit> => {
  const answer = await dns.lookup(domain, 'MX');
  if (answer.kind === 'unknown')
    return { judgement: 'unknown', reason: answer.reason, hosts: [], source: SOURCE };
  if (answer.kind === 'none')
    return {
      judgement: 'fail',
      reason: `${domain} has no MX record: it receives no replies`,
      hosts: [],
      source: SOURCE,
    };
  const hosts = [...answer.records]
    .sort((a, b) => a.priority - b.priority)
    .map((record) => record.exchange.replace(/\.$/, ''))
    .slice(0, 10);
  if (hosts.length === 1 && hosts[0] === '')
    return {
      judgement: 'fail',
      reason: `${domain} publishes a null MX: it accepts no mail`,
      hosts: [],
      source: SOURCE,
    };
  return {
    judgement: 'pass',
    reason: `${domain} receives mail at ${hosts.join(', ')}`,
    hosts,
    source: SOURCE,
  };
};
