// Owns one check's DNS: every lookup in parallel against one time budget that starts with the check's audit (then
// each open or later lookup is unknown), answers cached per name and type, and a bound on how many names one check
// may ask for, because the names come from a message an attacker may have written.
import type { Clock } from '../domain/clock';
import {
  type DnsAnswer,
  type DnsRecordTypes,
  type DnsResolverPort,
  type DnsType,
  unknownAnswer,
} from './dnsPort';

export interface CheckDns {
  /** `anyOctets`: the name may hold any printable ASCII in a label (an SPF macro's expansion, RFC 7208 section 7). */
  lookup<T extends DnsType>(
    name: string,
    type: T,
    options?: { anyOctets?: boolean },
  ): Promise<DnsAnswer<DnsRecordTypes[T]>>;
  /** Ends the budget early and releases its timer: the check's audit is done. */
  close(): void;
}

/** Distinct lookups one check may make: SPF alone may take 10 plus 2 void, per domain, over a few domains. */
export const MAX_LOOKUPS_PER_CHECK = 200;

const MAX_NAME_LENGTH = 253;
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
/** Any printable ASCII but the dot: DNS carries any octet (RFC 2181 section 11), and SPF's names may hold these. */
const ANY_LABEL = /^[\x20-\x2d\x2f-\x7e]{1,63}$/;

/**
 * A name as DNS takes it (RFC 1035 lengths; letters, digits, hyphen and underscore, or with `anyOctets` any printable
 * ASCII): lower-case, no trailing dot.
 */
export const dnsName = (name: string, anyOctets = false): string | undefined => {
  if (name.length > MAX_NAME_LENGTH + 1) return undefined;
  const plain = name.toLowerCase().replace(/\.$/, '');
  if (plain === '' || plain.length > MAX_NAME_LENGTH) return undefined;
  const label = anyOctets ? ANY_LABEL : LABEL;
  return plain.split('.').every((part) => label.test(part)) ? plain : undefined;
};

export const createCheckDns = (resolver: DnsResolverPort, clock: Clock, budgetMs: number): CheckDns => {
  const controller = new AbortController();
  const cache = new Map<string, Promise<DnsAnswer<unknown>>>();
  let spent = false;
  const budgetSpent = clock.sleep(budgetMs, controller.signal).then(() => {
    spent = true;
    controller.abort();
    return unknownAnswer(`DNS unknown: lookups did not finish within ${budgetMs} ms`);
  });
  const lookup = <T extends DnsType>(
    name: string,
    type: T,
    options: { anyOctets?: boolean } = {},
  ): Promise<DnsAnswer<DnsRecordTypes[T]>> => {
    const plain = dnsName(name, options.anyOctets);
    if (plain === undefined) return Promise.resolve(unknownAnswer('not a valid DNS name'));
    const key = `${type} ${plain}`;
    const known = cache.get(key);
    if (known) return known as Promise<DnsAnswer<DnsRecordTypes[T]>>;
    if (spent) return budgetSpent;
    if (cache.size >= MAX_LOOKUPS_PER_CHECK)
      return Promise.resolve(unknownAnswer(`DNS unknown: more than ${MAX_LOOKUPS_PER_CHECK} lookups`));
    const answer = Promise.race([
      resolver.query(plain, type, controller.signal).catch(() => unknownAnswer('DNS lookup failed')),
      budgetSpent,
    ]);
    cache.set(key, answer);
    return answer;
  };
  return { lookup, close: () => controller.abort() };
};
