// Owns the link checks: how many links, plain http, URL shorteners, links to bare IPs, and visible text that names
// another domain than the link goes to (the phishing pattern filters look for).
import { parse } from 'tldts';
import type { Finding, LinkFact } from '../types';
import type { ContentCheck } from './contentCheck';

/** More links than this reads as a link farm to content filters. */
export const MANY_LINKS = 100;

/** Widely used public shorteners: they hide the destination, and blocklists list them when spammers do. */
const SHORTENERS = new Set(
  'bit.ly bitly.com tinyurl.com t.co goo.gl ow.ly is.gd buff.ly rebrand.ly cutt.ly shorturl.at rb.gy tiny.cc bl.ink lnkd.in s.id t.ly v.gd'.split(
    ' ',
  ),
);

const registrable = (host: string): string | undefined => parse(host).domain ?? undefined;

const finding = (f: Omit<Finding, 'mattersFor'>): Finding => ({ ...f, mattersFor: 'all' });

/** The first link matching, as a host to name in a title (a registrable domain, never the sender's whole href). */
const firstHost = (links: readonly LinkFact[], test: (link: LinkFact) => boolean): string | undefined => {
  const link = links.find(test);
  return link?.host === undefined ? undefined : (registrable(link.host) ?? link.host);
};

export const links: ContentCheck = {
  id: 'content.links',
  run: (content) => {
    const all = content.links;
    const total = all.length + content.linksOverCap;
    const findings: Finding[] = [];
    if (total > MANY_LINKS)
      findings.push(
        finding({
          id: 'content.many-links',
          severity: 'low',
          title: `The HTML holds ${total} links.`,
          fix: `Keep the links to what a reader needs, well under ${MANY_LINKS}.`,
          source: "SpamAssassin's link-count heuristics; blocklist lookups per link domain",
        }),
      );
    const plain = all.filter((l) => l.host !== undefined && !l.https).length;
    if (plain > 0)
      findings.push(
        finding({
          id: 'content.http-links',
          severity: 'low',
          title: `${plain} link(s) use plain http.`,
          fix: 'Serve every link, tracking redirects included, over https.',
          source: 'Browsers and mail clients flag http destinations as not secure',
        }),
      );
    const shortener = firstHost(
      all,
      (l) => l.host !== undefined && SHORTENERS.has(registrable(l.host) ?? l.host),
    );
    if (shortener)
      findings.push(
        finding({
          id: 'content.shortener',
          severity: 'high',
          title: `A link goes through the public URL shortener ${shortener}.`,
          fix: 'Link to your own domain (or your sending platform branded tracking domain) instead of a shortener.',
          source:
            'Spamhaus DBL and SURBL list shortener hosts abused by spammers; SpamAssassin DecodeShortURLs',
        }),
      );
    const ipLink = all.some((l) => l.host !== undefined && parse(l.host).isIp === true);
    if (ipLink)
      findings.push(
        finding({
          id: 'content.ip-link',
          severity: 'medium',
          title: 'A link points at a bare IP address.',
          fix: 'Link to a domain name you own.',
          source: "Yahoo's sender best practices (link to domains, not IP addresses)",
        }),
      );
    const mismatch = firstHost(
      all,
      (l) => l.host !== undefined && l.textDomain !== undefined && registrable(l.host) !== l.textDomain,
    );
    if (mismatch)
      findings.push(
        finding({
          id: 'content.link-text-mismatch',
          severity: 'high',
          title: `A link's visible text names one domain and goes to another (${mismatch}).`,
          fix: 'Make the visible text name the domain the link goes to, or use words instead of a domain.',
          source: "SpamAssassin's HTTPS_HTTP_MISMATCH and phishing heuristics of every major filter",
        }),
      );
    return findings;
  },
};
