// Owns what the DNS side is asked about for one copy, read from the copy's facts: the From, Return-Path and DKIM
// domains the sender wrote, the link domains of its HTML, and the sending IP from the receiver's own Received.
import { parse } from 'tldts';
import type { DnsSubjects } from './dnsResults';
import type { CopyFacts } from './types';

/** Link domains handed to the domain blocklists: the first distinct ones in the order the links appear. */
const MAX_LINK_DOMAINS = 10;

export const dnsSubjectsOf = (copy: CopyFacts): DnsSubjects => {
  const linkDomains = new Set<string>();
  for (const link of copy.content?.links ?? []) {
    if (linkDomains.size >= MAX_LINK_DOMAINS) break;
    const domain = link.host === undefined ? undefined : parse(link.host).domain;
    if (domain) linkDomains.add(domain);
  }
  return {
    fromDomain: copy.headers.fromDomain,
    returnPathDomain: copy.headers.returnPathDomain,
    dkim: copy.headers.dkimSignatures.flatMap(({ domain, selector }) =>
      selector === undefined ? [] : [{ domain, selector }],
    ),
    linkDomains: [...linkDomains],
    verified: copy.verified,
    sendingIp: copy.sendingHost?.ip,
  };
};
