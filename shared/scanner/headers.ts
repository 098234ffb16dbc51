// Owns reading a delivered copy's header block: its bounds, its fields, the topmost value of a header. Which checks a
// copy belongs to is recipients.ts's question, asked of the block read here.
import { EVIDENCE_HEADERS } from '../domain/envelopeEvidence';

export { EVIDENCE_HEADERS, type EvidenceHeader } from '../domain/envelopeEvidence';

/** Header blocks above this are refused unparsed: no real delivery needs them, and parsing costs time. */
export const MAX_HEADER_BYTES = 1024 * 1024;

/**
 * A block with more `+tc_` occurrences than this is refused like an oversized one. One check's message carries one
 * tag per test account plus the envelope headers; thousands can only be junk, and each costs a little to read, so
 * the cap is what keeps a hostile block of addresses inside the per-message time budget.
 */
export const MAX_TAG_CANDIDATES = 1000;

/** What the sender wrote as the recipients: read only from a copy that carries no envelope evidence. */
export const ADDRESSED_HEADERS = ['to', 'cc'] as const;

/** Outlook's own verdict on a delivered copy (`dest:I` inbox, `dest:J` junk), recorded next to the folder. */
export const MS_DELIVERY_HEADER = 'x-microsoft-antispam-mailbox-delivery';

/**
 * Exchange's mark on a message it took in from outside (its header firewall removes incoming X-MS-Exchange-
 * Organization-* fields): its verdict headers are believed only below it (receiverMarks.ts).
 */
export const MS_ORGANIZATION_MARK = 'x-ms-exchange-organization-network-message-id';

/** What the placement report reads besides: when it was sent, and the receiving side's own verdicts. */
const REPORT_HEADERS = [
  'date',
  'authentication-results',
  'x-spam-status',
  'x-forefront-antispam-report',
  'x-microsoft-antispam',
  MS_ORGANIZATION_MARK,
] as const;

/** What the scanner fetches of each new message: the recipient headers, the provider's verdicts, the report's. */
export const FETCHED_HEADERS = [
  ...EVIDENCE_HEADERS,
  ...ADDRESSED_HEADERS,
  MS_DELIVERY_HEADER,
  ...REPORT_HEADERS,
] as const;

/**
 * The header block as text (latin1 for bytes, so 8-bit junk cannot turn into something else), or undefined when too
 * big. Read once per message and asked every question (tagsInBlock, valueInBlock): on a block near 1 MB each read
 * is a pass over a megabyte.
 */
export const headerBlockOf = (raw: Buffer | string): string | undefined => {
  if (typeof raw !== 'string') {
    if (raw.length > MAX_HEADER_BYTES) return undefined;
    // Decoded whole (imapflow hands over the header block alone), then searched once: a native search of the bytes
    // for each form of empty line would cost two passes more.
    return blockOf(raw.toString('latin1'));
  }
  // UTF-8 needs 1 to 3 bytes per UTF-16 unit: only a string in between needs its bytes counted.
  if (raw.length > MAX_HEADER_BYTES) return undefined;
  if (raw.length * 3 > MAX_HEADER_BYTES && Buffer.byteLength(raw) > MAX_HEADER_BYTES) return undefined;
  return blockOf(raw);
};

/** Each attempt looks at most two characters past a newline: one linear pass. */
const EMPTY_LINE = /\n\r?\n/;

/** The text up to its first empty line (`\r?\n\r?\n`), or all of it. */
const blockOf = (text: string): string => {
  const found = text.search(EMPTY_LINE);
  if (found === -1) return text;
  return text.slice(0, text.charCodeAt(found - 1) === 0x0d ? found - 1 : found);
};

export const isFoldStart = (block: string, at: number): boolean => {
  const char = block.charCodeAt(at);
  return char === 0x20 || char === 0x09;
};

const FOLD_END = /\n(?![ \t])/g;

export interface Field {
  /** Lower-cased and trimmed; undefined for a line with no name before a colon, which is no header. */
  name: string | undefined;
  /** The raw (still folded) value: after the colon up to the end of the field's last line. */
  valueStart: number;
  valueEnd: number;
  /** Where the next field starts. */
  end: number;
}

/** The field that starts at `start` (a line that is no continuation) with its continuation lines. */
export const fieldAt = (block: string, start: number): Field => {
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

/**
 * Unfolding: every physical line trimmed, joined by one space. A split and a trim per line, not a regex around the
 * line break: `[^\S\n]*\n` retries its blank run from every blank of a line that has no break (quadratic in it).
 */
export const unfolded = (block: string, { valueStart, valueEnd }: Field): string =>
  block
    .slice(valueStart, valueEnd)
    .split('\n')
    .map((line) => line.trim())
    .join(' ')
    .trim();

/** Where the header holding position `at` starts: back over continuation lines to a line that is none. */
export const headerStartOf = (block: string, at: number): number => {
  let start = block.lastIndexOf('\n', at) + 1;
  while (start > 0 && isFoldStart(block, start))
    start = start >= 2 ? block.lastIndexOf('\n', start - 2) + 1 : 0;
  return start;
};

export const nextHeaderStart = (block: string, at: number): number => {
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

/**
 * Raw (folded) characters read of a field that has no reason to be long: a date (RFC 5322's line limit), the
 * receiving side's verdicts, and its envelope evidence (an address, or a Received line of a few hundred characters;
 * generously, as a Received cut before its `for` clause names no recipient). The rest is never scanned, unfolded nor
 * parsed; other fields are bounded by the block's cap.
 */
const VALUE_CAPS: ReadonlyMap<string, number> = new Map([
  ['date', 998],
  [MS_DELIVERY_HEADER, 4096],
  ['authentication-results', 4096],
  ['x-spam-status', 4096],
  ['x-forefront-antispam-report', 4096],
  ['x-microsoft-antispam', 4096],
  ...EVIDENCE_HEADERS.map((name) => [name, 65_536] as const),
]);

/** headerValue over a block from headerBlockOf (a capped field: only its first VALUE_CAPS characters). */
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
  const max = VALUE_CAPS.get(name.toLowerCase()) ?? MAX_HEADER_BYTES;
  // The field's end is looked for no further than the cap, so a capped read costs the same however long the field.
  const limit = found.index + found[0].length + max + 1;
  const field = fieldAt(limit < block.length ? block.slice(0, limit) : block, start);
  if (field.name === undefined) return undefined;
  return unfolded(block, { ...field, valueEnd: Math.min(field.valueEnd, field.valueStart + max) });
};

/**
 * The fields of a header block named in `names` (lower-case), each with its continuation lines, in their order:
 * what `BODY[HEADER.FIELDS (…)]` would have answered, cut from a whole `BODY[HEADER]<0.n>` read. One pass.
 */
export const selectedFields = (block: string, names: ReadonlySet<string>): string => {
  const kept: string[] = [];
  for (let start = 0; start < block.length; ) {
    const field = fieldAt(block, start);
    if (field.name !== undefined && names.has(field.name)) kept.push(block.slice(start, field.end));
    start = field.end > start ? field.end : block.length;
  }
  return kept.join('');
};
