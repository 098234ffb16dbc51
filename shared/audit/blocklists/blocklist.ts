// Owns asking one DNS list about one subject (an IP, or a domain's registrable part) and reading the answer as that
// list documents it: listed (which sublist), refused (a rate limit or a blocked resolver: never "listed"), or
// unknown; no answer at all (NXDOMAIN) is "not listed". Each list is a module of its own describing its codes.
import { isIP } from 'node:net';
import type { CheckDns } from '../checkDns';
import { organizationalDomain } from '../dmarc';
import type { DnsJudgement } from '../dnsJudgement';
import { reversedIp } from '../ptr';

/** What one answer (an A record) of a list means. */
export type ListCode =
  | { kind: 'listed'; what: string; family: string }
  | { kind: 'refused'; why: string }
  | { kind: 'undocumented' };

export interface ListZoneSettings {
  /** Replaces the list's public zone (a mirror, or the test zones). */
  zone?: string | undefined;
  /** A Spamhaus Data Query Service key: the Spamhaus lists are then asked through it. */
  spamhausDqsKey?: string | undefined;
}

export interface DnsBlocklist {
  id: string;
  name: string;
  subject: 'ip' | 'domain';
  /** The list answers IPv6 queries (nibble-reversed, RFC 5782 section 2.4). */
  ipv6: boolean;
  zone(settings: ListZoneSettings): string;
  read(code: string): ListCode;
  /** RFC 5782 section 5: a name the list must list, and one it must not; asked before a "not listed" counts. */
  testPoints: TestPoints;
  source: string;
}

export interface TestPoints {
  listed: string;
  notListed: string;
}

/** An IP list's test points: 127.0.0.2 listed, 127.0.0.1 not (RFC 5782 section 5), as query prefixes. */
export const IP_TEST_POINTS: TestPoints = { listed: '2.0.0.127', notListed: '1.0.0.127' };
/** What no domain list may list (RFC 5782 section 5: INVALID); each list names its own listed test domain. */
export const DOMAIN_NOT_LISTED = 'invalid';

export interface BlocklistResult extends DnsJudgement {
  list: string;
  /** The IP or registrable domain asked about. */
  subject: string;
  /** What it is listed as (`SBL`, `PBL (ISP-maintained)`), empty unless listed. */
  listings: string[];
  /** The sublists it is on, lower-case (`sbl`, `xbl`, `pbl`): a dynamic IP is a different fix from a hijacked one. */
  families: string[];
}

/** The last octet of a 127.0.0.0/8 answer, or undefined for any other answer. */
export const loopbackOctets = (code: string): [number, number, number] | undefined => {
  const match = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(code);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
};

/** Spamhaus's answers to a query it will not serve (its DNSBL usage page): never a listing. */
export const spamhausRefusal = (code: string): ListCode | undefined => {
  if (code === '127.255.255.252') return { kind: 'refused', why: 'Spamhaus: typing error in the list name' };
  if (code === '127.255.255.254')
    return { kind: 'refused', why: 'Spamhaus: query through a public or open resolver' };
  if (code === '127.255.255.255') return { kind: 'refused', why: 'Spamhaus: excessive number of queries' };
  return undefined;
};

/** The name to ask: reversed octets or nibbles for an IP (RFC 5782 section 2.1), the registrable domain otherwise. */
const queryPrefix = (list: DnsBlocklist, subject: string): string | undefined => {
  if (list.subject === 'domain') return isIP(subject) === 0 ? organizationalDomain(subject) : undefined;
  return reversedIp(subject);
};

/**
 * Why a list's "not listed" proves nothing through this resolver, or undefined when the list answered its test
 * points: a resolver that answers NXDOMAIN to everything (or a list gone silent) would make every subject clean.
 * Asked through the same check's DNS, so once per list and audit (its cache), beside the subject's own lookup.
 */
const testPointsMissed = async (
  dns: CheckDns,
  list: DnsBlocklist,
  zone: string,
): Promise<string | undefined> => {
  const { listed, notListed } = list.testPoints;
  const [yes, no] = await Promise.all([
    dns.lookup(`${listed}.${zone}`, 'A'),
    dns.lookup(`${notListed}.${zone}`, 'A'),
  ]);
  const listedRead =
    yes.kind === 'records' &&
    yes.records.length > 0 &&
    yes.records.every((code) => loopbackOctets(code) !== undefined && list.read(code).kind === 'listed');
  if (!listedRead)
    return `${list.name} did not list its test point ${listed} (RFC 5782 section 5): its "not listed" proves nothing through this resolver`;
  if (no.kind !== 'none')
    return `${list.name} did not answer "not listed" for ${notListed}, which it must not list (RFC 5782 section 5)`;
  return undefined;
};

export const checkBlocklist = async (
  dns: CheckDns,
  list: DnsBlocklist,
  subject: string,
  settings: ListZoneSettings = {},
): Promise<BlocklistResult> => {
  const base = { list: list.id, subject, listings: [], families: [], source: list.source };
  if (list.subject === 'ip' && isIP(subject) === 6 && !list.ipv6)
    return { ...base, judgement: 'unknown', reason: `${list.name} takes no IPv6 queries` };
  const prefix = queryPrefix(list, subject);
  if (prefix === undefined)
    return { ...base, judgement: 'unknown', reason: `${subject} is not what ${list.name} lists` };
  const asked = list.subject === 'domain' ? prefix : subject;
  const answer = await dns.lookup(`${prefix}.${list.zone(settings)}`, 'A');
  const named = { ...base, subject: asked };
  if (answer.kind === 'unknown')
    return { ...named, judgement: 'unknown', reason: `${list.name}: ${answer.reason}` };
  if (answer.kind === 'none') {
    const missed = await testPointsMissed(dns, list, list.zone(settings));
    if (missed !== undefined) return { ...named, judgement: 'unknown', reason: missed };
    return { ...named, judgement: 'pass', reason: `${asked} is not on ${list.name}` };
  }
  const codes = answer.records.slice(0, 16);
  // An answer outside 127.0.0.0/8 is no list's code: a resolver that rewrites NXDOMAIN made it up (RFC 5782 2.3).
  if (codes.some((code) => loopbackOctets(code) === undefined))
    return {
      ...named,
      judgement: 'unknown',
      reason: `${list.name} answered outside 127.0.0.0/8: not a list answer`,
    };
  const readings = codes.map((code) => ({ code, reading: list.read(code) }));
  const refused = readings.find(({ reading }) => reading.kind === 'refused');
  if (refused?.reading.kind === 'refused')
    return {
      ...named,
      judgement: 'unknown',
      reason: `${list.name} refused the query (${refused.code}: ${refused.reading.why})`,
    };
  const listed = readings.flatMap(({ reading }) => (reading.kind === 'listed' ? [reading] : []));
  if (listed.length === 0)
    return {
      ...named,
      judgement: 'unknown',
      reason: `${list.name} answered ${codes.join(', ')}, which it does not document`,
    };
  const listings = listed.map((reading) => reading.what);
  const families = [...new Set(listed.map((reading) => reading.family))];
  return {
    ...named,
    listings,
    families,
    judgement: 'fail',
    reason: `${asked} is on ${list.name}: ${listings.join(', ')}`,
  };
};
