// Owns SURBL multi (a domain list), as its implementation guidelines document: the last octet is a bitmask of
// lists (8 PH phishing, 16 MW malware, 64 ABUSE, 128 CR cracked sites), and 127.0.0.1 (bit 1) says the querier is
// blocked: a refusal, never a listing.
import { type DnsBlocklist, DOMAIN_NOT_LISTED, type ListCode, loopbackOctets } from './blocklist';

const BITS: [number, string][] = [
  [8, 'PH (phishing)'],
  [16, 'MW (malware)'],
  [64, 'ABUSE (spam and abuse)'],
  [128, 'CR (cracked site)'],
];

export const surblMulti: DnsBlocklist = {
  id: 'surbl-multi',
  name: 'SURBL multi',
  subject: 'domain',
  ipv6: false,
  zone: ({ zone }) => zone ?? 'multi.surbl.org',
  read: (code): ListCode => {
    if (code === '127.0.0.1') return { kind: 'refused', why: 'SURBL: the querying resolver is blocked' };
    const octets = loopbackOctets(code);
    if (octets?.[0] !== 0 || octets[1] !== 0) return { kind: 'undocumented' };
    const mask = octets[2];
    const lists = BITS.filter(([bit]) => (mask & bit) !== 0).map(([, what]) => what);
    return lists.length > 0
      ? { kind: 'listed', what: `SURBL ${lists.join(' + ')}`, family: 'surbl' }
      : { kind: 'undocumented' };
  },
  testPoints: { listed: 'test.surbl.org', notListed: DOMAIN_NOT_LISTED },
  source: 'SURBL, "Implementation guidelines" and "Lists" (multi.surbl.org)',
};
