// A plain header parser the tests hold the scanner's fast path against: every field of the block, unfolded, names
// lower-cased, and the recipient rule applied to that list instead of to the raw block. Written line by line, as
// simply as possible, so that it disagrees with the fast path whenever either is wrong.
import { EVIDENCE_HEADERS, type EvidenceHeader, headerBlockOf } from '../../shared/scanner/headers';
import { hasForClause, tagsInValue } from '../../shared/scanner/recipients';

export interface Header {
  name: string;
  value: string;
}

/** Every header of the block, unfolded, names lower-cased; undefined when the block is over MAX_HEADER_BYTES. */
export const parseHeaderBlock = (raw: Buffer | string): Header[] | undefined => {
  const block = headerBlockOf(raw);
  if (block === undefined) return undefined;
  const headers: Header[] = [];
  let current: { name: string; lines: string[] } | undefined;
  const finish = () => {
    if (current)
      headers.push({
        name: current.name,
        value: current.lines
          .map((line) => line.trim())
          .join(' ')
          .trim(),
      });
  };
  for (const line of block.split('\n')) {
    // A continuation line belongs to the field above it; above the first field, or under a line that is no field,
    // to nothing.
    if (line.startsWith(' ') || line.startsWith('\t')) {
      current?.lines.push(line);
      continue;
    }
    finish();
    const colon = line.indexOf(':');
    current =
      colon > 0
        ? { name: line.slice(0, colon).trim().toLowerCase(), lines: [line.slice(colon + 1)] }
        : undefined;
  }
  finish();
  return headers;
};

/**
 * The recipient rule over parsed headers: the topmost header of the first kind of envelope evidence present (a
 * Received only with a `for` clause) and nothing else; without any, every To and Cc.
 */
export const tagsForAccount = (
  headers: readonly Header[],
  account: string,
  evidence: readonly EvidenceHeader[] = EVIDENCE_HEADERS,
): Set<string> => {
  const [local = '', domain = ''] = account.toLowerCase().split('@');
  const found = new Set<string>();
  for (const name of evidence) {
    const topmost = headers.find((header) => header.name === name);
    if (!topmost || (name === 'received' && !hasForClause(topmost.value))) continue;
    tagsInValue(name, topmost.value, local, domain, found);
    return found;
  }
  for (const { name, value } of headers)
    if (name === 'to' || name === 'cc') tagsInValue(name, value, local, domain, found);
  return found;
};
