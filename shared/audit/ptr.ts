// Owns the sending host's reverse DNS (RFC 8601 section 3 "iprev", RFC 1912 section 2.1): a PTR for the IP whose
// name resolves back to the same IP (forward-confirmed reverse DNS), which the big receivers require of a sender,
// and a name of its own rather than a generic one built from the address (192-0-2-1.dynamic.example.net). A private
// address is an internal hop: its reverse DNS says nothing to receivers, so it is not judged. An IPv4-mapped IPv6
// address (::ffff:192.0.2.1) is its IPv4 address.
import { BlockList, isIP } from 'node:net';
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

/**
 * Addresses no receiver sees a sender at: RFC 1918, shared (RFC 6598), link-local and unique-local. Loopback is
 * looked up: it is where the test mail stack sends from, and no real receiver writes it as a sender.
 */
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['10.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv4');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');
PRIVATE.addSubnet('fe80::', 10, 'ipv6');

/** ::ffff:a.b.c.d (and ::ffff:hhhh:hhhh) as a.b.c.d; any other IP as written. */
export const unmappedIp = (ip: string): string => {
  const dotted = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (dotted && isIP(dotted[1] ?? '') === 4) return dotted[1] ?? ip;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(ip);
  if (!hex) return ip;
  const [high, low] = [Number.parseInt(hex[1] ?? '', 16), Number.parseInt(hex[2] ?? '', 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
};

/** Words providers put in end-user hosts' names, and the address's own digits: a generic name. */
const GENERIC_WORDS =
  /(?:^|[.-])(?:dynamic|dyn|dhcp|pool|dsl|adsl|cable|ppp|pppoe|dialup|dial|broadband|customer|cpe)(?:[.-]|\d|$)/;
const genericName = (name: string, ip: string) => {
  if (isIP(ip) !== 4) return GENERIC_WORDS.test(name);
  const octets = ip.split('.');
  const joined = [octets, [...octets].reverse()].flatMap((order) =>
    ['-', '.', '_'].map((sep) => order.join(sep)),
  );
  return joined.some((form) => name.includes(form)) || GENERIC_WORDS.test(name);
};

const sameIp = (a: string, b: string) =>
  isIP(a) === 6 && isIP(b) === 6 ? ipv6Nibbles(a) === ipv6Nibbles(b) : a === b;

export const auditPtr = async (dns: CheckDns, sendingIp: string): Promise<PtrAudit> => {
  const none = { names: [], confirmed: undefined, source: SOURCE };
  const ip = unmappedIp(sendingIp);
  const name = reverseName(ip);
  if (name === undefined)
    return { ...none, judgement: 'unknown', reason: 'the sending IP is not an IP address' };
  if (PRIVATE.check(ip, isIP(ip) === 4 ? 'ipv4' : 'ipv6'))
    return {
      ...none,
      judgement: 'unknown',
      reason: `${ip} is a private address: an internal hop, not the sender`,
    };
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
  if (confirmed && genericName(confirmed, ip))
    return {
      names,
      confirmed,
      source: SOURCE,
      judgement: 'fail',
      reason: `${ip} is ${confirmed}, a generic name: receivers take it for an end-user host`,
    };
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
