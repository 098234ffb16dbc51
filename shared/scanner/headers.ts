// Owns reading a delivered copy's header block and finding the check tags addressed to one account.
// Nothing here decodes: an RFC 2047 encoded-word is removed, never turned into an address.
import { isCheckId } from '../domain/checkId';

/** Header blocks above this are refused unparsed: no real delivery needs them, and parsing costs time. */
export const MAX_HEADER_BYTES = 1024 * 1024;

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

export const parseHeaderBlock = (raw: Buffer | string): Header[] | undefined => {
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  if (size > MAX_HEADER_BYTES) return undefined;
  // latin1 keeps every byte as one character, so 8-bit junk cannot turn into something else.
  const text = typeof raw === 'string' ? raw : raw.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const block = end === -1 ? text : text.slice(0, end);
  const headers: Header[] = [];
  for (const line of block.split(/\r?\n/)) {
    const last = headers.at(-1);
    if (/^[ \t]/.test(line)) {
      if (last) last.value += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    headers.push({ name: line.slice(0, colon).trim().toLowerCase(), value: line.slice(colon + 1).trim() });
  }
  return headers;
};

const ENCODED_WORD = /=\?[^?\s]+\?[bBqQ]\?[^?\s]*\?=/g;
// An address is a whole token: anything that would make the local part or domain longer (`a=inbox+tc_…`,
// `…@mail.test_evil.com`) keeps the token from matching at all.
const MAX_ADDRESS_LENGTH = 254;
const TOKEN_DELIMITERS = /[\s<>,;:()[\]"]+/;
const TAGGED_ADDRESS =
  /^([A-Za-z0-9._-]+)\+tc_([A-Za-z0-9]+)@([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+)$/i;

/** Removes quoted strings (display names) and comments in one linear pass; unterminated ones run to the end. */
const stripQuotedAndComments = (value: string): string => {
  let out = '';
  let depth = 0;
  let quoted = false;
  for (let index = 0; index < value.length; index++) {
    const char = value[index];
    if ((quoted || depth > 0) && char === '\\') {
      index++;
      continue;
    }
    if (quoted) {
      if (char === '"') {
        quoted = false;
        out += ' ';
      }
    } else if (char === '(') depth++;
    else if (char === ')' && depth > 0) {
      depth--;
      if (depth === 0) out += ' ';
    } else if (depth > 0) {
      // inside a comment: dropped
    } else if (char === '"') quoted = true;
    else out += char;
  }
  return out;
};

/** The tokens of a header that can be a recipient: display names, comments and encoded-words removed. */
const recipientTokensOf = ({ name, value }: Header): string[] => {
  const tokens = stripQuotedAndComments(value.replace(ENCODED_WORD, ' ')).split(TOKEN_DELIMITERS);
  if (name !== 'received') return tokens;
  // Only the `for <addr>` clause of a Received header names the recipient; the rest is hosts and ids.
  return tokens.flatMap((token, index) => (token.toLowerCase() === 'for' ? [tokens[index + 1] ?? ''] : []));
};

/**
 * Check ids of the tags addressed to `account` (its untagged address) in these headers, lower-cased.
 * Tags for other accounts, look-alikes in display names and subjects, and malformed ids are ignored.
 */
export const tagsForAccount = (headers: readonly Header[], account: string): Set<string> => {
  const [local, domain] = account.toLowerCase().split('@');
  const found = new Set<string>();
  for (const header of headers) {
    if (!(ADDRESS_HEADERS as readonly string[]).includes(header.name)) continue;
    for (const token of recipientTokensOf(header)) {
      // No address is longer than 254 characters (RFC 5321); the bound also keeps the regex linear on junk.
      if (token.length > MAX_ADDRESS_LENGTH || !/\+tc_/i.test(token)) continue;
      const match = TAGGED_ADDRESS.exec(token);
      if (!match) continue;
      const [, matchLocal, id, matchDomain] = match;
      if (matchLocal?.toLowerCase() !== local || matchDomain?.toLowerCase() !== domain) continue;
      const checkId = (id ?? '').toLowerCase();
      if (isCheckId(checkId)) found.add(checkId);
    }
  }
  return found;
};

export const tagsInMessage = (raw: Buffer | string, account: string): Set<string> => {
  const headers = parseHeaderBlock(raw);
  return headers ? tagsForAccount(headers, account) : new Set();
};

/** The first (topmost, so latest) value of a header, if any. */
export const headerValue = (raw: Buffer | string, name: string): string | undefined =>
  parseHeaderBlock(raw)?.find((header) => header.name === name)?.value;
