// Owns the property definitions for header parsing and tag matching, shared by the vitest run (few cases) and
// bench/properties.ts (100,000+ cases, with per-message timing). The messages come from headerMessages.ts.
//
// The oracle: every generated message is built from a model that records, as it writes each header, which
// (address, tag) pairs it wrote as a *recipient*: an addr-spec in Delivered-To, X-Original-To, Envelope-To, To or
// Cc (outside display names, comments, quoted strings and encoded-words; inside the angle brackets when an element
// has them), or the address of a Received header's `for` clause. Then it applies the delivery-evidence rule: the
// pairs of the topmost header of the first kind of envelope evidence written (Delivered-To, X-Original-To,
// Envelope-To, a Received with a `for` clause) are what the copy was delivered to; only without any, To and Cc.
// Everything else the generator writes carries tags too but delivers nothing: display names (quoted or not), comments, encoded-words, subjects and other headers,
// Received from/by/id/envelope-from, malformed ids, look-alike local parts and domains, bodies. Then, for every
// account asked (the mailbox itself, other accounts, every look-alike), tagsInMessage must return exactly the valid
// check ids recorded for that account: never one more (no false attribution), and none fewer unless the block is
// over MAX_HEADER_BYTES or has over MAX_TAG_CANDIDATES `+tc_` marks, when it must return nothing at all.
// headerValue must return the first Outlook verdict header's unfolded value as written. Random junk (NULs, binary,
// unicode, broken folding) is checked against the simple reference parser instead (parseHeaderBlock +
// tagsForAccount) and for never returning an id that is not written after a `+tc_` in the block.
import { isCheckId } from '../../shared/domain/checkId';
import { msDeliveryOf } from '../../shared/providers/msDelivery';
import {
  headerBlockOf,
  MAX_HEADER_BYTES,
  MAX_TAG_CANDIDATES,
  MS_DELIVERY_HEADER,
  valueInBlock,
} from '../../shared/scanner/headers';
import { tagsInBlock, tagsInMessage } from '../../shared/scanner/recipients';
import type { GeneratedMessage } from './headerMessages';
import { parseHeaderBlock, tagsForAccount } from './referenceHeaders';

/** What a message exercises, counted by both runs to show the generator really produces each case. */
export const featuresOf = (message: GeneratedMessage): string[] => {
  const text = typeof message.raw === 'string' ? message.raw : message.raw.toString('utf8');
  const head = blockOf(text);
  const features: [string, boolean][] = [
    ['folded header', /\n[ \t]/.test(head)],
    ['encoded-word', /=\?[^?]+\?[bq]\?/i.test(head)],
    ['several Delivered-To', (head.match(/^delivered-to:/gim)?.length ?? 0) > 1],
    ['NUL', head.includes('\u0000')],
    ['non-ASCII', /[\u0080-\uffff]/.test(head)],
    ['tag in a display name', /"[^"\n]*\+tc_[^"\n]*"\s*</i.test(head)],
    ['tag in a comment', /\([^()\n]*\+tc_[^()\n]*\)/i.test(head)],
    ['tag in a subject', /^subject:[^\n]*\+tc_/im.test(head)],
    ['tag for another account', message.delivered.size > 1],
    ['tag delivered to this mailbox', message.delivered.has(message.mailbox.toLowerCase())],
    [
      'untagged for this mailbox',
      message.shape === 'model' && !message.delivered.has(message.mailbox.toLowerCase()),
    ],
    ['over MAX_HEADER_BYTES', Buffer.byteLength(text) > MAX_HEADER_BYTES],
    ['over MAX_TAG_CANDIDATES marks', (head.match(/\+tc_/gi)?.length ?? 0) > MAX_TAG_CANDIDATES],
    ['bytes', typeof message.raw !== 'string'],
  ];
  return features.filter(([, present]) => present).map(([name]) => name);
};

const sorted = (ids: Iterable<string>) => [...ids].sort().join(',');

// Written independently of the parser's own pattern: an address the parser is meant to read.
const READABLE = /^[a-z0-9._-]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/;

const blockOf = (raw: string | Buffer): string => {
  const text = typeof raw === 'string' ? raw : raw.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  return end === -1 ? text : text.slice(0, end);
};

/** What the scanner does per message: the tags for its mailbox, and the verdict header of a tagged copy. */
export const scanOne = (message: GeneratedMessage): { tags: Set<string>; verdict: string | undefined } => {
  // As the scanner does: the block read once, then both questions asked of it.
  const block = headerBlockOf(message.raw);
  const tags = block === undefined ? new Set<string>() : tagsInBlock(block, message.mailbox);
  const verdict = block === undefined ? undefined : valueInBlock(block, MS_DELIVERY_HEADER);
  msDeliveryOf(verdict);
  return { tags, verdict };
};

/**
 * Every way this message's reading can be wrong, as readable lines (empty when right). `result` is what scanOne
 * returned for it, so the timed call is checked too.
 */
export const problemsOf = (
  message: GeneratedMessage,
  result: { tags: Set<string>; verdict: string | undefined },
): string[] => {
  const problems: string[] = [];
  const { raw } = message;
  const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.length;
  const block = blockOf(raw);
  const refused = size > MAX_HEADER_BYTES || (block.match(/\+tc_/gi)?.length ?? 0) > MAX_TAG_CANDIDATES;
  // The generator's own promises, so a broken generator cannot make the properties pass vacuously.
  if (message.shape === 'oversized' && size <= MAX_HEADER_BYTES) problems.push('generator: not oversized');
  if (message.shape === 'too-many-tags' && !refused) problems.push('generator: not too many tags');
  if ((message.shape === 'large' || message.shape === 'model') && refused)
    problems.push('generator: refused');

  const headers = parseHeaderBlock(raw) ?? [];
  for (const account of message.accounts) {
    const tags = account === message.mailbox ? result.tags : tagsInMessage(raw, account);
    for (const id of tags) if (!isCheckId(id)) problems.push(`${account}: returned a malformed id ${id}`);
    if (refused) {
      if (tags.size > 0) problems.push(`${account}: read a refused block (${size} bytes): ${sorted(tags)}`);
      continue;
    }
    if (message.shape === 'chaos') {
      // No model: every returned id must at least be written after a `+tc_` in the header block.
      for (const id of tags) {
        if (!block.toLowerCase().includes(`+tc_${id}`)) problems.push(`${account}: invented ${id}`);
      }
    } else {
      const lower = account.toLowerCase();
      const delivered = [...(message.delivered.get(lower) ?? [])].filter(isCheckId);
      const extra = [...tags].filter((id) => !delivered.includes(id));
      if (extra.length > 0)
        problems.push(`${account}: attributed to ${sorted(extra)}, never delivered to it`);
      const missed = delivered.filter((id) => !tags.has(id));
      if (READABLE.test(lower) && missed.length > 0) {
        problems.push(`${account}: missed ${sorted(missed)}, delivered to it`);
      }
    }
    // The fast path must agree with the plain reference parser.
    const reference = refused ? new Set<string>() : tagsForAccount(headers, account);
    if (sorted(reference) !== sorted(tags)) {
      problems.push(`${account}: tagsInMessage ${sorted(tags)} but the reference reads ${sorted(reference)}`);
    }
  }

  const referenceVerdict = headers.find((header) => header.name === MS_DELIVERY_HEADER)?.value;
  if (result.verdict !== referenceVerdict) {
    problems.push(
      `headerValue ${JSON.stringify(result.verdict)}, reference ${JSON.stringify(referenceVerdict)}`,
    );
  }
  if (message.shape !== 'chaos') {
    const expected = size > MAX_HEADER_BYTES ? undefined : message.verdict;
    if (result.verdict !== expected) {
      problems.push(`headerValue ${JSON.stringify(result.verdict)}, written ${JSON.stringify(expected)}`);
    }
  }
  return problems;
};

/** Describes a message for a failure report without printing a megabyte. */
export const describeMessage = (message: GeneratedMessage): string => {
  const text = typeof message.raw === 'string' ? message.raw : message.raw.toString('latin1');
  const shown = text.length > 4000 ? `${text.slice(0, 4000)}… (${text.length} characters)` : text;
  return `${message.shape} message for ${message.mailbox} (${typeof message.raw === 'string' ? 'string' : 'bytes'}):\n${JSON.stringify(shown)}`;
};
