// Owns what the DNS side is asked about for one copy, read from the copy's facts: the From, Return-Path and DKIM
// domains the sender wrote, the link domains of its HTML, and the sending IP from the receiver's own Received.
import { parse } from 'tldts';
import type { DnsSubjects } from './dnsResults';
import type { CopyFacts } from './types';

/** Link domains handed to the domain blocklists: the first distinct ones in the order the links appear. */
const MAX_LINK_DOMAINS = 10;

export const dnsSubjectsOf = (copy: CopyFacts): DnsSubjects => {
  const linkDomains = new Set<string>();
  const over = new Set<string>();
  for (const link of copy.content?.links ?? []) {
    const domain = link.host === undefined ? undefined : parse(link.host).domain;
    if (!domain || linkDomains.has(domain)) continue;
    // Past the cap the rest are only counted (a bounded set: the links themselves are capped by the HTML scan).
    if (linkDomains.size < MAX_LINK_DOMAINS) linkDomains.add(domain);
    else over.add(domain);
  }
  return {
    fromDomain: copy.headers.fromDomain,
    returnPathDomain: copy.headers.returnPathDomain,
    dkim: copy.headers.dkimSignatures.flatMap(({ domain, selector }) =>
      selector === undefined ? [] : [{ domain, selector }],
    ),
    linkDomains: [...linkDomains],
    linkDomainsOverCap: over.size,
    verified: copy.verified,
    sendingIp: copy.sendingHost?.ip,
  };
};
