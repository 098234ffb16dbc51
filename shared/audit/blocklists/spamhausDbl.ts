// Owns Spamhaus DBL (a domain list), as its return-code page documents: 127.0.1.2-.99 for domains of low
// reputation, 127.0.1.102-.199 for abused legitimate ones, 127.0.1.255 for an IP asked of a domain list, and the
// 127.255.255.x refusals common to Spamhaus.
import {
  type DnsBlocklist,
  DOMAIN_NOT_LISTED,
  type ListCode,
  loopbackOctets,
  spamhausRefusal,
} from './blocklist';

const CODES: Record<number, string> = {
  2: 'spam domain',
  4: 'phish domain',
  5: 'malware domain',
  6: 'botnet C&C domain',
  102: 'abused legit spam',
  103: 'abused spammed redirector',
  104: 'abused legit phish',
  105: 'abused legit malware',
  106: 'abused legit botnet C&C',
};

export const spamhausDbl: DnsBlocklist = {
  id: 'spamhaus-dbl',
  name: 'Spamhaus DBL',
  subject: 'domain',
  ipv6: false,
  zone: ({ zone, spamhausDqsKey }) =>
    zone ?? (spamhausDqsKey ? `${spamhausDqsKey}.dbl.dq.spamhaus.net` : 'dbl.spamhaus.org'),
  read: (code): ListCode => {
    const refusal = spamhausRefusal(code);
    if (refusal) return refusal;
    if (code === '127.0.1.255') return { kind: 'refused', why: 'Spamhaus DBL: IP queries are prohibited' };
    const octets = loopbackOctets(code);
    const what = octets && octets[0] === 0 && octets[1] === 1 ? CODES[octets[2]] : undefined;
    if (what === undefined) return { kind: 'undocumented' };
    return { kind: 'listed', what: `DBL ${what}`, family: octets && octets[2] >= 100 ? 'dbl-abused' : 'dbl' };
  },
  testPoints: { listed: 'dbltest.com', notListed: DOMAIN_NOT_LISTED },
  source: 'Spamhaus, "DNSBL return codes" (dbl.spamhaus.org; DQS dbl.dq.spamhaus.net)',
};
