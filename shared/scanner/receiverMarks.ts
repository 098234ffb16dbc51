// Owns where a copy's header block demonstrably holds the receiving side's own writing. Every hop prepends a
// Received header, so the topmost one is the receiver's and all the sender wrote lies below it. Exchange's header
// firewall removes X-MS-Exchange-Organization-* fields from mail arriving from outside, so the topmost such mark is
// Exchange's own; Exchange appends its verdict headers below it, after the message's own headers.
import { fieldAt, MS_ORGANIZATION_MARK, unfolded } from './headers';

const RECEIVED = 'received';
const starts = new Map<string, RegExp>();

const startPattern = (name: string): RegExp => {
  let pattern = starts.get(name);
  if (!pattern) {
    const escaped = name.toLowerCase().replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    // As valueInBlock: a line that is no continuation; only white space other than space, tab or newline before the
    // name. Each attempt stops at the next newline, so a scan is linear in the block.
    pattern = new RegExp(`(?:^|\\n)[^\\S \\t\\n]*${escaped}[^\\S\\n]*:`, 'gi');
    starts.set(name, pattern);
  }
  return pattern;
};

/** Where the first field named `name` starts at or after `from` (0 or the start of a line), or -1. */
const fieldStartIn = (block: string, name: string, from = 0): number => {
  const pattern = startPattern(name);
  pattern.lastIndex = Math.max(0, from - 1);
  const found = pattern.exec(block);
  if (!found) return -1;
  return found.index + (block[found.index] === '\n' ? 1 : 0);
};

/** The unfolded value of the first `name` field at or after `from`, at most `cap` raw characters of it. */
const valueFrom = (block: string, name: string, from: number, cap: number): string | undefined => {
  const start = fieldStartIn(block, name, from);
  if (start === -1) return undefined;
  const field = fieldAt(block, start);
  if (field.name === undefined) return undefined;
  return unfolded(block, { ...field, valueEnd: Math.min(field.valueEnd, field.valueStart + cap) });
};

/**
 * The topmost `name` field, only when it stands above the topmost Received: written after the receiver took the
 * message in (SpamAssassin puts its headers first). Undefined without any Received: then nothing shows the receiver.
 */
export const aboveTopReceived = (block: string, name: string, cap: number): string | undefined => {
  const received = fieldStartIn(block, RECEIVED);
  const start = fieldStartIn(block, name);
  if (received === -1 || start === -1 || start > received) return undefined;
  return valueFrom(block, name, start, cap);
};

/** Where Exchange's own organization mark starts, or -1 where Exchange did not take the message in. */
export const microsoftMarkIn = (block: string): number => fieldStartIn(block, MS_ORGANIZATION_MARK);

/** The first `name` field below Exchange's organization mark; above it (or without it) any is the sender's. */
export const belowMicrosoftMark = (block: string, name: string, cap: number): string | undefined => {
  const mark = microsoftMarkIn(block);
  return mark === -1 ? undefined : valueFrom(block, name, fieldAt(block, mark).end, cap);
};
