// Owns a check's sender audit item: the claim, then what the audit found, could not check and read (the copy's facts
// and DNS results) as one JSON attribute, cut to fit well inside DynamoDB's 400 KB item: links, names and findings
// are the sender's to make many and long.
import type { ContentFacts, CopyFacts, StoredAudit } from '../../audit';
import { num, str } from './itemFields';
import type { Item } from './keys';

type ReadyAudit = Extract<StoredAudit, { state: 'ready' }>;

/** The JSON kept per audit at most: with the keys and times, far from the 400 KB item limit. */
export const MAX_AUDIT_BYTES = 300_000;
/** Any one text kept (an href, a title, a reason): the code's own sentences are far shorter. */
const MAX_KEPT_TEXT = 512;

const cutText = (_key: string, value: unknown) =>
  typeof value === 'string' && value.length > MAX_KEPT_TEXT ? value.slice(0, MAX_KEPT_TEXT) : value;

/** The copy's facts with only the first `links` links kept (the rest counted as over the cap). */
const withLinks = (facts: CopyFacts, links: number): CopyFacts => {
  const content: ContentFacts | undefined = facts.content && {
    ...facts.content,
    links: facts.content.links.slice(0, links),
    linksOverCap: facts.content.linksOverCap + Math.max(0, facts.content.links.length - links),
  };
  return { ...facts, content };
};

/**
 * The stored JSON of a finished audit; past MAX_AUDIT_BYTES, fewer links of the facts, then fewer findings, are
 * kept, and a cut finding list is named as not checked.
 */
export const auditBody = (audit: ReadyAudit): string => {
  const { copy, facts, dns, findings, notChecked, checklists } = audit;
  let links = facts.content?.links.length ?? 0;
  let keep = Math.max(findings.length, notChecked.length);
  for (;;) {
    const left = findings.length - Math.min(keep, findings.length);
    const cut =
      left > 0 ? [{ id: 'audit.cut', why: `${left} findings past what is kept were left out` }] : [];
    const body = JSON.stringify(
      {
        copy,
        facts: withLinks(facts, links),
        dns,
        findings: findings.slice(0, keep),
        notChecked: [...cut, ...notChecked.slice(0, keep)],
        checklists,
      },
      cutText,
    );
    if (Buffer.byteLength(body) <= MAX_AUDIT_BYTES || (links === 0 && keep === 0)) return body;
    if (links > 0) links = Math.floor(links / 2);
    else keep = Math.floor(keep / 2);
  }
};

export const auditFromItem = (item: Item): StoredAudit => {
  const state = str(item, 'state');
  const claimedAt = num(item, 'claimedAt');
  if (state === 'claimed') return { state, claimedAt };
  if (state === 'unavailable')
    return { state, claimedAt, auditedAt: num(item, 'auditedAt'), why: str(item, 'why') };
  const body = JSON.parse(str(item, 'body')) as Omit<ReadyAudit, 'state' | 'claimedAt' | 'auditedAt'>;
  return {
    state: 'ready',
    claimedAt,
    auditedAt: num(item, 'auditedAt'),
    ...body,
    dns: body.dns ?? undefined,
  };
};
