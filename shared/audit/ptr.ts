// Owns the sending host's reverse DNS (RFC 8601 section 3 "iprev", RFC 1912 section 2.1): a PTR for the IP whose
// name resolves back to the same IP (forward-confirmed reverse DNS), which the big receivers require of a sender.
import { isIP } from 'node:net';
import type { CheckDns } from './checkDns';
import type { DnsJudgement } from './dnsJudgement';

const SOURCE = 'RFC 8601 section 3 (iprev), RFC 1912 section 2.1';
/** PTR names followed forward: a host with more is unusual, and each costs a lookup. */
const MAX_NAMES = 5;

export interface PtrAudit extends DnsJudgement {
  names: string[];
  /** The PTR name that resolves back to the IP. */
  confirmed: string | undefined;
}

/** The full 32 hex digits of an IPv6 address, or undefined. */
const ipv6Nibbles = (ip: string): string | undefined => {
  if (isIP(ip) !== 6 || ip.includes('.')) return undefined;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = ip.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((group) => group.padStart(4, '0')).join('');
};

/** An IP's name under in-addr.arpa or ip6.arpa without the suffix: reversed octets, or reversed nibbles. */
export const reversedIp = (ip: string): string | undefined => {
  if (isIP(ip) === 4) return ip.split('.').reverse().join('.');
  return ipv6Nibbles(ip)?.split('').reverse().join('.');
};

export const reverseName = (ip: string): string | undefined => {
  const reversed = reversedIp(ip);
  if (reversed === undefined) return undefined;
  return `${reversed}.${isIP(ip) === 4 ? 'in-addr.arpa' : 'ip6.arpa'}`;
};

const sameIp = (a: string, b: string) =>
  isIP(a) === 6 && isIP(b) === 6 ? ipv6Nibbles(a) === ipv6Nibbles(b) : a === b;

export const auditPtr = async (dns: CheckDns, ip: string): Promise<PtrAudit> => {
  const none = { names: [], confirmed: undefined, source: SOURCE };
  const name = reverseName(ip);
  if (name === undefined)
    return { ...none, judgement: 'unknown', reason: 'the sending IP is not an IP address' };
  const answer = await dns.lookup(name, 'PTR');
  if (answer.kind === 'unknown') return { ...none, judgement: 'unknown', reason: answer.reason };
  if (answer.kind === 'none') return { ...none, judgement: 'fail', reason: `${ip} has no PTR record` };
  const names = answer.records.map((host) => host.replace(/\.$/, '').toLowerCase()).slice(0, MAX_NAMES);
  const type = isIP(ip) === 4 ? 'A' : 'AAAA';
  const forward = await Promise.all(names.map((host) => dns.lookup(host, type)));
  const confirmed = names.find((_, at) => {
    const back = forward[at];
    return back?.kind === 'records' && back.records.some((address) => sameIp(address, ip));
  });
  if (confirmed)
    return { names, confirmed, source: SOURCE, judgement: 'pass', reason: `${ip} is ${confirmed}, and back` };
  const unknown = forward.find((back) => back.kind === 'unknown');
  if (unknown?.kind === 'unknown')
    return { names, confirmed, source: SOURCE, judgement: 'unknown', reason: unknown.reason };
  return {
    names,
    confirmed,
    source: SOURCE,
    judgement: 'fail',
    reason: `${ip} names ${names.join(', ')}, which does not resolve back to it`,
  };
};
