// Owns a check's sender audit item: the claim, then the copy's facts and the DNS side's results as one JSON
// attribute, cut to fit well inside DynamoDB's 400 KB item (links and names are the sender's to make long).
import type { ContentFacts, CopyFacts } from '../../audit/types';
import type { StoredAudit } from '../../usecases/auditRecord';
import { num, str } from './itemFields';
import type { Item } from './keys';

/** The JSON kept per audit at most: with the keys and times, far from the 400 KB item limit. */
export const MAX_AUDIT_BYTES = 300_000;
const MAX_KEPT_TEXT = 256;

const cut = (text: string | undefined) => (text === undefined ? undefined : text.slice(0, MAX_KEPT_TEXT));

/** The content facts with each href and file name cut, and only the first `links` links (the rest counted). */
const trimmed = (content: ContentFacts, links: number): ContentFacts => ({
  ...content,
  links: content.links.slice(0, links).map((link) => ({
    ...link,
    href: cut(link.href) ?? '',
    host: cut(link.host),
    textDomain: cut(link.textDomain),
  })),
  linksOverCap: content.linksOverCap + Math.max(0, content.links.length - links),
  attachments: content.attachments.map((file) => ({
    ...file,
    contentType: cut(file.contentType) ?? '',
    filename: cut(file.filename),
  })),
});

/** The stored JSON of a finished audit, halving the links kept until it fits MAX_AUDIT_BYTES. */
export const auditBody = (audit: Extract<StoredAudit, { state: 'ready' }>): string => {
  const { copy, dns } = audit;
  let links = audit.facts.content?.links.length ?? 0;
  for (;;) {
    const facts: CopyFacts = audit.facts.content
      ? { ...audit.facts, content: trimmed(audit.facts.content, links) }
      : audit.facts;
    const body = JSON.stringify({ copy, facts, dns });
    if (Buffer.byteLength(body) <= MAX_AUDIT_BYTES || links === 0) return body;
    links = Math.floor(links / 2);
  }
};

export const auditFromItem = (item: Item): StoredAudit => {
  const state = str(item, 'state');
  const claimedAt = num(item, 'claimedAt');
  if (state === 'claimed') return { state, claimedAt };
  if (state === 'unavailable')
    return { state, claimedAt, auditedAt: num(item, 'auditedAt'), why: str(item, 'why') };
  const body = JSON.parse(str(item, 'body')) as Pick<
    Extract<StoredAudit, { state: 'ready' }>,
    'copy' | 'facts' | 'dns'
  >;
  return {
    state: 'ready',
    claimedAt,
    auditedAt: num(item, 'auditedAt'),
    ...body,
    dns: body.dns ?? undefined,
  };
};
