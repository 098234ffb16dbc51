// Owns which IP addresses a webhook may reach: public unicast only, so a callback URL cannot point the service at
// its own network (loopback, private ranges, link-local metadata endpoints, CGNAT, and their IPv6 forms).
import { BlockList, isIP } from 'node:net';

const NOT_PUBLIC_V4: readonly [string, number][] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, the instance metadata endpoint among them
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
];

// Every IPv6 form that can carry an IPv4 address (mapped, translated, compatible, NAT64, 6to4, Teredo) is refused
// whole rather than decoded: a public service has no reason to be reached through one. Every entry of IANA's
// special-purpose registries that is not globally reachable is here (test/fixtures/iana/special-purpose.csv).
const NOT_PUBLIC_V6: readonly [string, number][] = [
  ['::', 96], // unspecified, loopback and IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped
  ['::ffff:0:0:0', 96], // IPv4-translated (RFC 2765)
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix
  ['2001::', 23], // IETF protocol assignments: Teredo, benchmarking (2001:2::/48), AMT, AS112, ORCHIDv2
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4
  ['3fff::', 20], // documentation
  ['5f00::', 16], // SRv6 SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10],
  ['ff00::', 8], // multicast
];

// Two lists: Node matches an IPv4 address against IPv6 subnets through its mapped form, so ::ffff:0:0/96 in one
// list with IPv4 would refuse every IPv4 address.
const blockedV4 = new BlockList();
for (const [network, prefix] of NOT_PUBLIC_V4) blockedV4.addSubnet(network, prefix, 'ipv4');
const blockedV6 = new BlockList();
for (const [network, prefix] of NOT_PUBLIC_V6) blockedV6.addSubnet(network, prefix, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

const bare = (address: string) => address.replace(/^\[|\]$/g, '');

/** True only for a literal IPv4 or IPv6 address outside every reserved range; anything else (a name, junk) is false. */
export const isPublicAddress = (address: string): boolean => {
  const ip = bare(address);
  const family = isIP(ip);
  if (family === 0) return false;
  return family === 4 ? !blockedV4.check(ip, 'ipv4') : !blockedV6.check(ip, 'ipv6');
};

/** 127.0.0.0/8 or ::1, as a literal. */
export const isLoopbackAddress = (address: string): boolean => {
  const ip = bare(address);
  const family = isIP(ip);
  return family !== 0 && LOOPBACK.check(ip, family === 4 ? 'ipv4' : 'ipv6');
};

/** Where callbacks may go: public addresses, and this machine over plain http only when a local setting says so. */
export interface CallbackPolicy {
  allowLoopbackHttp: boolean;
}

export const AWS_CALLBACK_POLICY: CallbackPolicy = { allowLoopbackHttp: false };

/** Whether a webhook may be sent to `address` (the one actually connected to) under `policy`. */
export const mayConnectTo = (address: string, policy: CallbackPolicy): boolean =>
  isPublicAddress(address) || (policy.allowLoopbackHttp && isLoopbackAddress(address));
