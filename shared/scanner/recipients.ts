// Owns which checks a delivered copy belongs to, for one account: the tags addressed to it, read from the envelope
// evidence the receiving side wrote (EVIDENCE_HEADERS, topmost only) and, only where a copy carries none, from its
// To and Cc. A copy whose evidence names check X credits X alone, whatever its To says: a sender who copies or
// forwards another check's To line must not complete that check. Nothing here decodes: an RFC 2047 encoded-word is
// removed, never turned into an address.
import { nextTagAt, TAG_LENGTH, taggedAddressOf } from '../domain/address';
import { isCheckId } from '../domain/checkId';
import {
  ADDRESSED_HEADERS,
  EVIDENCE_HEADERS,
  type EvidenceHeader,
  fieldAt,
  headerBlockOf,
  headerStartOf,
  isFoldStart,
  MAX_TAG_CANDIDATES,
  nextHeaderStart,
  valueInBlock,
} from './headers';

const ENCODED_WORD = /=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=/g;
// An address is a whole token: anything that would make the local part or domain longer (`a=inbox+tc_…`,
// `…@mail.test_evil.com`) keeps the token from matching at all.
const MAX_ADDRESS_LENGTH = 254;
const WIDE_SPACE = /\s/;

/** Token boundaries: white space and the specials `<>,;:()[]"`. */
const isDelimiter = (code: number): boolean => {
  if (code < 0x80) {
    return (
      code <= 0x20 ||
      code === 0x3c ||
      code === 0x3e ||
      code === 0x2c ||
      code === 0x3b ||
      code === 0x3a ||
      code === 0x28 ||
      code === 0x29 ||
      code === 0x5b ||
      code === 0x5d ||
      code === 0x22
    );
  }
  return WIDE_SPACE.test(String.fromCharCode(code));
};

/**
 * Blanks out quoted strings (display names) and comments, each character of one turned into a space, so positions
 * stay; an unterminated one runs to the end. One pass over the value's character codes into an array of the same
 * length, of bytes while every character fits one (the string it gives back is half the size): no piece per region
 * (a string grown by `+=` per region was a rope a million pieces deep on a megabyte of `""`, and cost up to 3.4
 * times as much per doubling of it) and no regex.
 */
const withoutQuotedAndComments = (value: string): string => {
  if (!value.includes('"') && !value.includes('(')) return value;
  const wide = /[\u0100-\uffff]/.test(value);
  const codes = wide ? new Uint16Array(value.length) : Buffer.allocUnsafe(value.length);
  let quoted = false;
  let depth = 0;
  for (let index = 0; index < value.length; index++) {
    const char = value.charCodeAt(index);
    if (!quoted && depth === 0) {
      if (char === 0x22) quoted = true;
      else if (char === 0x28) depth = 1;
      codes[index] = quoted || depth > 0 ? 0x20 : char;
      continue;
    }
    codes[index] = 0x20;
    if (char === 0x5c) {
      if (index + 1 < value.length) codes[++index] = 0x20;
    } else if (quoted) quoted = char !== 0x22;
    else if (char === 0x28) depth++;
    else if (char === 0x29) depth--;
  }
  if (codes instanceof Buffer) return codes.toString('latin1');
  // The array's code units are in the platform's order, little-endian on every platform Node runs on, as utf16le
  // reads them.
  return Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength).toString('utf16le');
};

/**
 * The check ids tagged for `local@domain` in one recipient header's value (folded or not: only white space differs).
 * A token counts when it is a whole address; in an address-list element with an angle address, only inside the
 * angle brackets, so a display name never counts, quoted or not; in Received, only right after `for`.
 */
export const tagsInValue = (
  name: string,
  value: string,
  local: string,
  domain: string,
  found: Set<string>,
): void => {
  const received = name === 'received';
  const text = withoutQuotedAndComments(value.replace(ENCODED_WORD, ' '));
  let elementEnd = -1;
  let angleOpen = -1;
  let angleClose = -1;
  for (let hit = nextTagAt(text); hit !== -1; ) {
    let start = hit;
    while (start > 0 && hit - start <= MAX_ADDRESS_LENGTH && !isDelimiter(text.charCodeAt(start - 1)))
      start--;
    let end = hit + TAG_LENGTH;
    while (end < text.length && end - start <= MAX_ADDRESS_LENGTH && !isDelimiter(text.charCodeAt(end)))
      end++;
    hit = nextTagAt(text, end);
    // No address is longer than 254 characters (RFC 5321); the bound also keeps the scan linear on junk.
    if (end - start > MAX_ADDRESS_LENGTH) continue;
    if (received) {
      // Only the `for <addr>` clause of a Received header names the recipient; the rest is hosts and ids.
      if (previousToken(text, start).toLowerCase() !== 'for') continue;
    } else {
      if (start > elementEnd) {
        // Tokens hold no comma, so each element is found once, and elements do not overlap: linear overall.
        const elementStart = text.lastIndexOf(',', start) + 1;
        const next = text.indexOf(',', end);
        elementEnd = next === -1 ? text.length : next;
        const element = text.slice(elementStart, elementEnd);
        const open = element.indexOf('<');
        const close = open === -1 ? -1 : element.indexOf('>', open);
        angleOpen = open === -1 ? -1 : elementStart + open;
        angleClose = close === -1 ? -1 : elementStart + close;
      }
      if (angleOpen !== -1 && (start < angleOpen || (angleClose !== -1 && end > angleClose))) continue;
    }
    const tagged = taggedAddressOf(text.slice(start, end));
    if (!tagged || tagged.local !== local || tagged.domain !== domain) continue;
    if (isCheckId(tagged.checkId)) found.add(tagged.checkId);
  }
};

/** The token before the one starting at `start` (at most a few characters are needed: it must be `for`). */
const previousToken = (text: string, start: number): string => {
  let end = start;
  while (end > 0 && isDelimiter(text.charCodeAt(end - 1))) end--;
  let begin = end;
  while (begin > 0 && end - begin < 4 && !isDelimiter(text.charCodeAt(begin - 1))) begin--;
  return begin > 0 && !isDelimiter(text.charCodeAt(begin - 1)) ? '' : text.slice(begin, end);
};

const isAddressedHeader = (name: string): boolean => (ADDRESSED_HEADERS as readonly string[]).includes(name);

const accountParts = (account: string) => {
  const [local = '', domain = ''] = account.toLowerCase().split('@');
  return { local, domain };
};

const FOR_CLAUSE = /(?:^|[\s;])for\s+<?[^\s<>;@]+@/i;

/** Whether a Received value names a recipient: a `for` clause outside comments (`(… for <x>)` is no clause). */
export const hasForClause = (value: string): boolean =>
  FOR_CLAUSE.test(withoutQuotedAndComments(value.replace(ENCODED_WORD, ' ')));

/**
 * The envelope evidence a copy carries: the topmost value of the first of `evidence` it has (a Received only when it
 * has a `for` clause), or undefined when it carries none.
 */
const evidenceIn = (
  block: string,
  evidence: readonly EvidenceHeader[] = EVIDENCE_HEADERS,
): { name: EvidenceHeader; value: string } | undefined => {
  for (const name of evidence) {
    const value = valueInBlock(block, name);
    if (value === undefined || (name === 'received' && !hasForClause(value))) continue;
    return { name, value };
  }
  return undefined;
};

/**
 * Check ids of the tags addressed to `account` (its untagged address) in a raw header block, lower-cased; `evidence`
 * lists the envelope headers the account's provider writes (all of them by default). Oversized blocks and blocks
 * with over MAX_TAG_CANDIDATES marks give nothing.
 */
export const tagsInMessage = (
  raw: Buffer | string,
  account: string,
  evidence?: readonly EvidenceHeader[],
): Set<string> => {
  const block = headerBlockOf(raw);
  return block === undefined ? new Set() : tagsInBlock(block, account, evidence);
};

/** tagsInMessage over a block from headerBlockOf. */
export const tagsInBlock = (
  block: string,
  account: string,
  evidence?: readonly EvidenceHeader[],
): Set<string> => {
  const found = new Set<string>();
  const marks: number[] = [];
  for (let hit = nextTagAt(block); hit !== -1; hit = nextTagAt(block, hit + TAG_LENGTH)) {
    if (marks.push(hit) > MAX_TAG_CANDIDATES) return found;
  }
  const { local, domain } = accountParts(account);
  const envelope = evidenceIn(block, evidence);
  if (envelope) {
    tagsInValue(envelope.name, envelope.value, local, domain, found);
    return found;
  }
  // No evidence: the sender's To and Cc are all there is. Only the fields that hold a `+tc_` are read.
  let readUpTo = 0;
  for (const at of marks) {
    if (at < readUpTo) continue;
    const start = headerStartOf(block, at);
    // A mark in continuation lines before the first header belongs to no header.
    if (isFoldStart(block, start)) {
      readUpTo = nextHeaderStart(block, at);
      continue;
    }
    const field = fieldAt(block, start);
    // The folded value has the same tokens as the unfolded one (only white space differs), so it is read as is.
    if (field.name !== undefined && isAddressedHeader(field.name)) {
      tagsInValue(field.name, block.slice(field.valueStart, field.valueEnd), local, domain, found);
    }
    readUpTo = field.end;
  }
  return found;
};

/** One envelope header of a copy, as the admin probe reports it: carried or not, and the check ids it names. */
export interface EvidenceSeen {
  header: EvidenceHeader;
  present: boolean;
  checkIds: string[];
}

/** What each envelope header of a copy says about `account` (topmost only, a Received only with a for clause). */
export const evidenceSeen = (block: string, account: string): EvidenceSeen[] => {
  const { local, domain } = accountParts(account);
  return EVIDENCE_HEADERS.map((header) => {
    const found = evidenceIn(block, [header]);
    const ids = new Set<string>();
    if (found) tagsInValue(header, found.value, local, domain, ids);
    return { header, present: found !== undefined, checkIds: [...ids] };
  });
};
