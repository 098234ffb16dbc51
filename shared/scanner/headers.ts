// Owns reading a delivered copy's header block and finding the check tags addressed to one account.
// Nothing here decodes: an RFC 2047 encoded-word is removed, never turned into an address.
import { isCheckId } from '../domain/checkId';

/** Header blocks above this are refused unparsed: no real delivery needs them, and parsing costs time. */
export const MAX_HEADER_BYTES = 1024 * 1024;

/**
 * A block with more `+tc_` occurrences than this is refused like an oversized one. One check's message carries one
 * tag per test account plus the envelope headers; thousands can only be junk, and each costs a little to read, so
 * the cap is what keeps a hostile block of addresses inside the per-message time budget.
 */
export const MAX_TAG_CANDIDATES = 1000;

/** The headers a delivered copy can carry the recipient in; BCC copies only have the envelope ones. */
export const ADDRESS_HEADERS = [
  'delivered-to',
  'x-original-to',
  'envelope-to',
  'to',
  'cc',
  'received',
] as const;

/** Outlook's own verdict on a delivered copy (`dest:I` inbox, `dest:J` junk), recorded next to the folder. */
export const MS_DELIVERY_HEADER = 'x-microsoft-antispam-mailbox-delivery';

/** What the scanner fetches of each new message: the recipient headers and the provider's verdict. */
export const FETCHED_HEADERS = [...ADDRESS_HEADERS, MS_DELIVERY_HEADER] as const;

export interface Header {
  name: string;
  value: string;
}

/**
 * The header block as text (latin1 for bytes, so 8-bit junk cannot turn into something else), or undefined when too
 * big. Read once per message and asked every question (tagsInBlock, valueInBlock): on a block near 1 MB each read
 * is a pass over a megabyte.
 */
export const headerBlockOf = (raw: Buffer | string): string | undefined => {
  if (typeof raw !== 'string') {
    if (raw.length > MAX_HEADER_BYTES) return undefined;
    // Only the block is decoded, not a body that may follow it.
    return raw.toString('latin1', 0, blockEnd(raw));
  }
  // UTF-8 needs 1 to 3 bytes per UTF-16 unit: only a string in between needs its bytes counted.
  if (raw.length > MAX_HEADER_BYTES) return undefined;
  if (raw.length * 3 > MAX_HEADER_BYTES && Buffer.byteLength(raw) > MAX_HEADER_BYTES) return undefined;
  return raw.slice(0, blockEnd(raw));
};

/** Where the first empty line (`\r?\n\r?\n`) starts, or the end: two native searches instead of a regex pass. */
const blockEnd = (raw: Buffer | string): number => {
  const bare = raw.indexOf('\n\n');
  const crlf = raw.indexOf('\n\r\n');
  const first = bare === -1 ? crlf : crlf === -1 ? bare : Math.min(bare, crlf);
  if (first === -1) return raw.length;
  const before = typeof raw === 'string' ? raw.charCodeAt(first - 1) : raw[first - 1];
  return before === 0x0d ? first - 1 : first;
};

const isFoldStart = (block: string, at: number): boolean => {
  const char = block.charCodeAt(at);
  return char === 0x20 || char === 0x09;
};

const FOLD_END = /\n(?![ \t])/g;
const LINE_BREAK = /[^\S\n]*\n[^\S\n]*/g;

interface Field {
  /** Lower-cased and trimmed; undefined for a line with no name before a colon, which is no header. */
  name: string | undefined;
  /** The raw (still folded) value: after the colon up to the end of the field's last line. */
  valueStart: number;
  valueEnd: number;
  /** Where the next field starts. */
  end: number;
}

/** The field that starts at `start` (a line that is no continuation) with its continuation lines. */
const fieldAt = (block: string, start: number): Field => {
  FOLD_END.lastIndex = start;
  const found = FOLD_END.exec(block);
  const valueEnd = found ? found.index : block.length;
  const end = found ? found.index + 1 : block.length;
  const lineEnd = block.indexOf('\n', start);
  const colon = block.slice(start, lineEnd === -1 || lineEnd > valueEnd ? valueEnd : lineEnd).indexOf(':');
  if (colon <= 0) return { name: undefined, valueStart: end, valueEnd: end, end };
  const name = block
    .slice(start, start + colon)
    .trim()
    .toLowerCase();
  return { name, valueStart: start + colon + 1, valueEnd, end };
};

/** Unfolding: every physical line trimmed, joined by one space. */
const unfolded = (block: string, { valueStart, valueEnd }: Field): string =>
  block.slice(valueStart, valueEnd).replace(LINE_BREAK, ' ').trim();

/** Every header of the block, unfolded, names lower-cased; undefined when the block is over MAX_HEADER_BYTES. */
export const parseHeaderBlock = (raw: Buffer | string): Header[] | undefined => {
  const block = headerBlockOf(raw);
  if (block === undefined) return undefined;
  const headers: Header[] = [];
  let at = 0;
  // Continuation lines before the first header belong to nothing.
  while (at < block.length && isFoldStart(block, at)) at = nextLineStart(block, at);
  while (at < block.length) {
    const field = fieldAt(block, at);
    if (field.name !== undefined) headers.push({ name: field.name, value: unfolded(block, field) });
    at = field.end;
  }
  return headers;
};

const nextLineStart = (block: string, at: number): number => {
  const newline = block.indexOf('\n', at);
  return newline === -1 ? block.length : newline + 1;
};

/** Where the header holding position `at` starts: back over continuation lines to a line that is none. */
const headerStartOf = (block: string, at: number): number => {
  let start = block.lastIndexOf('\n', at) + 1;
  while (start > 0 && isFoldStart(block, start))
    start = start >= 2 ? block.lastIndexOf('\n', start - 2) + 1 : 0;
  return start;
};

const ENCODED_WORD = /=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=/g;
// An address is a whole token: anything that would make the local part or domain longer (`a=inbox+tc_…`,
// `…@mail.test_evil.com`) keeps the token from matching at all.
const MAX_ADDRESS_LENGTH = 254;
const TAGGED_ADDRESS =
  /^([A-Za-z0-9._-]+)\+tc_([A-Za-z0-9]+)@([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)$/i;
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

const OUTSIDE = /["(]/g;

/**
 * Removes quoted strings (display names) and comments, each replaced by one space; an unterminated one runs to the
 * end. Linear: outside them it jumps to the next `"` or `(` instead of walking every character.
 */
const withoutQuotedAndComments = (value: string): string => {
  let out = '';
  let at = 0;
  for (;;) {
    OUTSIDE.lastIndex = at;
    const open = OUTSIDE.exec(value);
    if (!open) return out + value.slice(at);
    out += value.slice(at, open.index);
    const quoted = value.charCodeAt(open.index) === 0x22;
    let depth = 1;
    let index = open.index + 1;
    for (; depth > 0 && index < value.length; index++) {
      const char = value.charCodeAt(index);
      if (char === 0x5c) index++;
      else if (quoted) {
        if (char === 0x22) depth = 0;
      } else if (char === 0x28) depth++;
      else if (char === 0x29) depth--;
    }
    if (depth > 0) return out;
    out += ' ';
    at = index;
  }
};

const TAG_IN_BLOCK = /\+tc_/gi;
const TAG_IN_VALUE = /\+tc_/gi;

/**
 * The check ids tagged for `local@domain` in one recipient header's value (folded or not: only white space differs).
 * A token counts when it is a whole address; in an address-list element with an angle address, only inside the
 * angle brackets, so a display name never counts, quoted or not; in Received, only right after `for`.
 */
const tagsInValue = (
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
  TAG_IN_VALUE.lastIndex = 0;
  for (let hit = TAG_IN_VALUE.exec(text); hit; hit = TAG_IN_VALUE.exec(text)) {
    let start = hit.index;
    while (start > 0 && hit.index - start <= MAX_ADDRESS_LENGTH && !isDelimiter(text.charCodeAt(start - 1)))
      start--;
    let end = hit.index + 4;
    while (end < text.length && end - start <= MAX_ADDRESS_LENGTH && !isDelimiter(text.charCodeAt(end)))
      end++;
    TAG_IN_VALUE.lastIndex = end;
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
    const match = TAGGED_ADDRESS.exec(text.slice(start, end));
    if (!match) continue;
    const [, matchLocal, id, matchDomain] = match;
    if (matchLocal?.toLowerCase() !== local || matchDomain?.toLowerCase() !== domain) continue;
    const checkId = (id ?? '').toLowerCase();
    if (isCheckId(checkId)) found.add(checkId);
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

const isAddressHeader = (name: string): boolean => (ADDRESS_HEADERS as readonly string[]).includes(name);

const accountParts = (account: string) => {
  const [local = '', domain = ''] = account.toLowerCase().split('@');
  return { local, domain };
};

/**
 * Check ids of the tags addressed to `account` (its untagged address) in these headers, lower-cased.
 * Tags for other accounts, look-alikes in display names and subjects, and malformed ids are ignored.
 */
export const tagsForAccount = (headers: readonly Header[], account: string): Set<string> => {
  const { local, domain } = accountParts(account);
  const found = new Set<string>();
  for (const { name, value } of headers)
    if (isAddressHeader(name)) tagsInValue(name, value, local, domain, found);
  return found;
};

/**
 * tagsForAccount over a raw header block, reading only the headers that hold a `+tc_`, so a big block costs one
 * scan for the mark, not a parse of every line. Oversized blocks and blocks with over MAX_TAG_CANDIDATES marks
 * give nothing.
 */
export const tagsInMessage = (raw: Buffer | string, account: string): Set<string> => {
  const block = headerBlockOf(raw);
  return block === undefined ? new Set() : tagsInBlock(block, account);
};

/** tagsInMessage over a block from headerBlockOf. */
export const tagsInBlock = (block: string, account: string): Set<string> => {
  const found = new Set<string>();
  const marks: number[] = [];
  TAG_IN_BLOCK.lastIndex = 0;
  for (let hit = TAG_IN_BLOCK.exec(block); hit; hit = TAG_IN_BLOCK.exec(block)) {
    if (marks.push(hit.index) > MAX_TAG_CANDIDATES) return found;
  }
  const { local, domain } = accountParts(account);
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
    if (field.name !== undefined && isAddressHeader(field.name)) {
      tagsInValue(field.name, block.slice(field.valueStart, field.valueEnd), local, domain, found);
    }
    readUpTo = field.end;
  }
  return found;
};

const nextHeaderStart = (block: string, at: number): number => {
  FOLD_END.lastIndex = at;
  const found = FOLD_END.exec(block);
  return found ? found.index + 1 : block.length;
};

const nameStarts = new Map<string, RegExp>();

/** The first (topmost, so latest) value of a header, if any; finds the header's line without parsing the others. */
export const headerValue = (raw: Buffer | string, name: string): string | undefined => {
  const block = headerBlockOf(raw);
  return block === undefined ? undefined : valueInBlock(block, name);
};

/** headerValue over a block from headerBlockOf. */
export const valueInBlock = (block: string, name: string): string | undefined => {
  let pattern = nameStarts.get(name);
  if (!pattern) {
    const escaped = name.toLowerCase().replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    // A header line starts the block or follows a newline, and is no continuation (no leading space or tab);
    // other white space around the name is trimmed, as parseHeaderBlock does.
    pattern = new RegExp(`(?:^|\\n)[^\\S \\t\\n]*${escaped}[^\\S\\n]*:`, 'i');
    nameStarts.set(name, pattern);
  }
  const found = pattern.exec(block);
  if (!found) return undefined;
  const start = found.index + (block[found.index] === '\n' ? 1 : 0);
  const field = fieldAt(block, start);
  return field.name === undefined ? undefined : unfolded(block, field);
};
