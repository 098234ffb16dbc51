// Owns URIBL multi (a domain list), as its usage page documents: the last octet is a bitmask (2 black, 4 grey,
// 8 red), and 127.0.0.1 means the query was refused (a public resolver, or over the free volume): never a listing.
import { type DnsBlocklist, DOMAIN_NOT_LISTED, type ListCode, loopbackOctets } from './blocklist';

const BITS: [number, string][] = [
  [2, 'black'],
  [4, 'grey'],
  [8, 'red'],
];

export const uriblMulti: DnsBlocklist = {
  id: 'uribl-multi',
  name: 'URIBL multi',
  subject: 'domain',
  ipv6: false,
  zone: ({ zone }) => zone ?? 'multi.uribl.com',
  read: (code): ListCode => {
    if (code === '127.0.0.1') return { kind: 'refused', why: 'URIBL: query refused' };
    const octets = loopbackOctets(code);
    if (octets?.[0] !== 0 || octets[1] !== 0) return { kind: 'undocumented' };
    const lists = BITS.filter(([bit]) => (octets[2] & bit) !== 0).map(([, what]) => what);
    if (lists.length === 0) return { kind: 'undocumented' };
    // Grey lists domains of bulk mail that may honour opt-outs: a caution, not a spam-domain verdict.
    const family = lists.length === 1 && lists[0] === 'grey' ? 'uribl-grey' : 'uribl';
    return { kind: 'listed', what: `URIBL ${lists.join(' + ')}`, family };
  },
  testPoints: { listed: 'test.uribl.com', notListed: DOMAIN_NOT_LISTED },
  source: 'URIBL, "Usage" and "About" (multi.uribl.com)',
};
