// Owns the bridge from the audit's DNS (one check's budget and cache) to mailauth's resolver shape: node:dns's
// answers, and its error codes for none (ENOTFOUND, ENODATA) and for a lookup that judged nothing (ETIMEOUT).
import type { DNSResolver } from 'mailauth';
import { type CheckDns, dnsName } from './checkDns';
import type { DnsType } from './dnsPort';

const TYPES = new Set<string>(['A', 'AAAA', 'TXT', 'MX', 'PTR']);

const failure = (code: string, why: string) => Object.assign(new Error(why), { code });

/** A mailauth resolver that asks only through the check's DNS; TXT as node:dns gives it (one string per record). */
export const mailauthResolver =
  (dns: CheckDns): DNSResolver =>
  async (domain: string, rrtype: string) => {
    const type = rrtype.toUpperCase();
    if (!TYPES.has(type)) throw failure('ENOTIMP', `the audit does not ask ${type.slice(0, 8)} records`);
    // A name no query can carry (a label over 63 bytes, a character outside host names): RFC 7208 sections 4.3 and
    // 4.8 treat it as a name that does not exist, a void lookup, not as an error.
    if (dnsName(domain, true) === undefined) throw failure('ENOTFOUND', 'not a name DNS can be asked');
    const answer = await dns.lookup(domain, type as DnsType, { anyOctets: true });
    if (answer.kind === 'none')
      throw failure(answer.reason === 'nxdomain' ? 'ENOTFOUND' : 'ENODATA', answer.reason);
    // mailauth makes ETIMEOUT a temperror everywhere; an error code it does not know is dropped inside an include.
    if (answer.kind === 'unknown') throw failure('ETIMEOUT', answer.reason);
    if (type === 'TXT') return answer.records.map((text) => [text as string]);
    // MX answers are objects ({exchange, priority}) as node:dns gives them; mailauth reads .exchange.
    return answer.records as string[];
  };
