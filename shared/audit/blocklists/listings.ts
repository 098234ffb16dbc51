// Owns asking the DNS lists about one copy and saying what they answered: the sending IP against the IP lists, its
// distinct registrable domains (capped) against the domain lists; a listing is a finding with the fix its sublist
// calls for, a refusal, a silent list or a timeout a "not checked".

import type { CheckDns } from '../checkDns';
import { organizationalDomain } from '../dmarc';
import type { Finding, NotChecked } from '../types';
import { type BlocklistResult, checkBlocklist, type DnsBlocklist, type ListZoneSettings } from './blocklist';
import { DOMAIN_BLOCKLISTS, IP_BLOCKLISTS } from './defaultBlocklists';

/** Which lists to ask and where (the audit's options). */
export interface ListOptions {
  ipLists?: readonly DnsBlocklist[];
  domainLists?: readonly DnsBlocklist[];
  /** Per list id: another zone (a mirror; the test zones). */
  zones?: Readonly<Record<string, string>>;
  spamhausDqsKey?: string | undefined;
}

/** Registrable domains asked of the domain lists at most: the sender writes the links. */
export const MAX_LIST_DOMAINS = 10;

/** The blocklists' answers: the sending IP against the IP lists, the distinct registrable domains (capped) against
 * the domain lists; with how many domains the cap left out. */
export const listingsOf = async (
  dns: CheckDns,
  ip: string | undefined,
  candidates: readonly (string | undefined)[],
  options: ListOptions,
): Promise<{ results: BlocklistResult[]; domainsOver: number }> => {
  const settings = (list: DnsBlocklist): ListZoneSettings => ({
    zone: options.zones?.[list.id],
    spamhausDqsKey: options.spamhausDqsKey,
  });
  const all = [
    ...new Set(
      candidates.filter((domain): domain is string => domain !== undefined).map(organizationalDomain),
    ),
  ];
  const domains = all.slice(0, MAX_LIST_DOMAINS);
  const [byIp, byDomain] = await Promise.all([
    ip
      ? Promise.all(
          (options.ipLists ?? IP_BLOCKLISTS).map((list) => checkBlocklist(dns, list, ip, settings(list))),
        )
      : [],
    Promise.all(
      domains.flatMap((domain) =>
        (options.domainLists ?? DOMAIN_BLOCKLISTS).map((list) =>
          checkBlocklist(dns, list, domain, settings(list)),
        ),
      ),
    ),
  ]);
  return { results: [...byIp, ...byDomain], domainsOver: all.length - domains.length };
};

/** What a listing asks the sender to do: a dynamic range (PBL), a spam source or hijacked host, or a listed domain. */
const listingFinding = (result: BlocklistResult): Omit<Finding, 'id' | 'title' | 'source'> => {
  const mattersFor = 'all' as const;
  if (result.families.includes('pbl') && result.families.length === 1)
    return {
      severity: 'high',
      fix: `Send through your provider's mail servers instead of directly from ${result.subject}, an end-user address range.`,
      mattersFor,
    };
  if (result.families.includes('xbl'))
    return {
      severity: 'critical',
      fix: `Find and clean the compromised host sending from ${result.subject}, then request removal from the list.`,
      mattersFor,
    };
  // Spamhaus's abused-legit codes list a good site someone broke into: the fix is cleaning it, not leaving it.
  if (result.families.length > 0 && result.families.every((family) => family === 'dbl-abused'))
    return {
      severity: 'high',
      fix: `Have the compromised site at ${result.subject} cleaned (its owner or host), then request removal from the list.`,
      mattersFor,
    };
  if (result.families.length > 0 && result.families.every((family) => family === 'uribl-grey'))
    return {
      severity: 'low',
      fix: `Check that ${result.subject} sends only mail recipients asked for; URIBL grey lists bulk senders, not spam domains.`,
      mattersFor,
    };
  if (result.families.some((family) => family === 'dbl' || family === 'surbl' || family === 'uribl'))
    return {
      severity: 'high',
      fix: `Stop linking to ${result.subject} (or get it cleaned up and delisted): receivers judge mail by its domains.`,
      mattersFor,
    };
  return {
    severity: 'critical',
    fix: `Stop the spam coming from ${result.subject} and request removal from the list once it has stopped.`,
    mattersFor,
  };
};

/** What every blocklist finding's id starts with: a listing is a finding, a refusal or timeout a "not checked". */
export const LISTING_ID_PREFIX = 'blocklist.';

export const blocklistOutcome = (
  outcome: { findings: Finding[]; notChecked: NotChecked[] },
  results: BlocklistResult[],
) => {
  for (const result of results) {
    const id = `${LISTING_ID_PREFIX}${result.list}.${result.subject}`;
    if (result.judgement === 'fail')
      outcome.findings.push({ id, title: result.reason, source: result.source, ...listingFinding(result) });
    if (result.judgement === 'unknown') outcome.notChecked.push({ id, why: result.reason });
  }
};
