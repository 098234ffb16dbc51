// Owns reading the receiving provider's own Authentication-Results (RFC 8601) from a copy's header block: only the
// topmost, by an authserv-id the account trusts by exact name, with bounded effort on whatever the sender wrote.

import type { AuthVerdict } from '../domain/placementReport';
import type { AuthTrust } from '../domain/receivingTrust';
import { fieldAt, unfolded } from './headers';
import { microsoftMarkIn } from './receiverMarks';

export type { AuthTrust } from '../domain/receivingTrust';

const AUTH_RESULTS_HEADER = 'authentication-results';

/** Headers looked at, topmost first; a real delivery has a handful (iCloud writes one per method). */
export const MAX_AUTH_HEADERS = 16;
/** Characters of one header value read; the rest is ignored, as no real result needs it. */
const MAX_AUTH_VALUE = 4096;
/** An authserv-id is a host name or a token; longer ones are junk. */
const MAX_AUTHSERV_ID = 128;
const RESULT = /^[a-z]{1,20}$/;
/**
 * UTF-8 bytes of a reason kept (so at most as many characters): enough for any real one ("body hash did not
 * verify", Gmail's "google.com: domain of … designates … as permitted sender"), and four of them keep a copy's
 * evidence under 2 KB.
 */
export const MAX_REASON = 120;
const METHODS = ['spf', 'dkim', 'dmarc', 'arc'] as const;
type Method = (typeof METHODS)[number];

/** Every value of `name` in the block, topmost first, at most `max` of them. */
const valuesInBlock = (block: string, name: string, max: number): string[] => {
  const escaped = name.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const pattern = new RegExp(`(?:^|\\n)[^\\S \\t\\n]*${escaped}[^\\S\\n]*:`, 'gi');
  const values: string[] = [];
  for (let found = pattern.exec(block); found && values.length < max; found = pattern.exec(block)) {
    const start = found.index + (block[found.index] === '\n' ? 1 : 0);
    const field = fieldAt(block, start);
    if (field.name !== undefined)
      values.push(
        unfolded(block, { ...field, valueEnd: Math.min(field.valueEnd, field.valueStart + MAX_AUTH_VALUE) }),
      );
    pattern.lastIndex = Math.max(pattern.lastIndex, field.end - 1);
  }
  return values;
};

/** One `;`-separated part of a value: its text without comments, and each top-level comment with where it was. */
interface Segment {
  text: string;
  /** `at`: the length of `text` where the comment stood; `comment`: its content, at most MAX_COMMENT characters. */
  comments: { at: number; comment: string }[];
}

/** Characters of one comment kept while splitting; a reason is capped well below this. */
/** A comment is kept to a few reasons' worth: enough for the longest reason after its white space is collapsed. */
const MAX_COMMENT = 4 * MAX_REASON;

/**
 * A value without its comments (nested, RFC 5322 CFWS), split at the semicolons outside quoted strings, each part
 * keeping its top-level comments aside: one pass, linear in the (capped) length whatever the nesting.
 */
const splitSegments = (value: string): Segment[] => {
  const segments: Segment[] = [];
  let current: Segment = { text: '', comments: [] };
  let comment: { at: number; comment: string } | undefined;
  let depth = 0;
  let quoted = false;
  const inComment = (chars: string) => {
    if (comment && comment.comment.length < MAX_COMMENT) comment.comment += chars;
  };
  for (let at = 0; at < value.length; at++) {
    const char = value[at] ?? '';
    if (char === '\\' && (quoted || depth > 0)) {
      if (depth > 0) inComment(value[at + 1] ?? '');
      else current.text += value.slice(at, at + 2);
      at++;
    } else if (quoted) {
      current.text += char;
      if (char === '"') quoted = false;
    } else if (char === '(') {
      if (depth === 0) {
        comment = { at: current.text.length, comment: '' };
        current.comments.push(comment);
      } else inComment(char);
      depth++;
    } else if (char === ')') {
      depth = Math.max(0, depth - 1);
      if (depth > 0) inComment(char);
    } else if (depth > 0) inComment(char);
    else if (char === '"') {
      quoted = true;
      current.text += char;
    } else if (char === ';') {
      segments.push(current);
      current = { text: '', comments: [] };
    } else current.text += char;
  }
  segments.push(current);
  return segments;
};

const ELLIPSIS = '…';

/** A reason as kept: no control or direction-changing character, white space collapsed, at most MAX_REASON bytes. */
export const cleanReason = (raw: string): string | null => {
  const clean = raw
    .replace(/\p{Cc}|[\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return null;
  if (Buffer.byteLength(clean) <= MAX_REASON) return clean;
  // Cut by code points, so no surrogate pair or UTF-8 sequence is split, leaving room for the ellipsis.
  let kept = '';
  let bytes = Buffer.byteLength(ELLIPSIS);
  for (const char of clean) {
    bytes += Buffer.byteLength(char);
    if (bytes > MAX_REASON) break;
    kept += char;
  }
  return `${kept}${ELLIPSIS}`;
};

/** `method[/version] = result`, then an RFC 8601 reasonspec (section 2.2: `reason = value`, a token or quoted string). */
const RESINFO = /^\s*([a-z-]+)(?:\/\d+)?\s*=\s*([a-z]+)(\s*)(?:reason\s*=\s*("(?:[^"\\]|\\.)*"|[^\s";]+))?/i;

/** The receiving side's own reason for one result: its `reason=`, else the comment right after the result word. */
const reasonOf = (segment: Segment, match: RegExpExecArray): string | null => {
  const reason = match[4];
  if (reason !== undefined)
    return cleanReason(reason.startsWith('"') ? reason.slice(1, -1).replace(/\\(.)/g, '$1') : reason);
  const resultEnd = match.index + (match[0].length - (match[3] ?? '').length);
  const after = segment.comments.find(
    ({ at }) => at >= resultEnd && at <= resultEnd + (match[3] ?? '').length,
  );
  return after === undefined ? null : cleanReason(after.comment);
};

interface ParsedResults {
  /** Lower-cased; undefined where the header names none (Microsoft's form, or junk). */
  authservId: string | undefined;
  results: Partial<Record<Method, string>>;
  /** The reason given with each result read, where one was given (see reasonOf). */
  reasons: Partial<Record<Method, string>>;
  /** The domains the receiver verified: each `dkim=pass`'s header.d (or header.i), `spf=pass`'s smtp.mailfrom. */
  passed: VerifiedDomains;
}

/** What the receiver verified, by domain (lower-cased): what alignment and signature checks may rest on. */
export interface VerifiedDomains {
  dkim: string[];
  spf: string[];
}

/** Verified domains kept per method: a real header names a handful of signatures. */
const MAX_PASSED = 8;
const PROPERTY = /^(header\.d|header\.i|smtp\.mailfrom)=(\S{1,320})$/i;

/** The domain a `pass` result vouches for: header.d, the domain of header.i or of smtp.mailfrom. */
const passedDomainOf = (method: Method, text: string): string | undefined => {
  for (const word of text.split(/\s+/).slice(0, 16)) {
    const match = PROPERTY.exec(word);
    if (!match) continue;
    const property = (match[1] ?? '').toLowerCase();
    if ((method === 'dkim') !== property.startsWith('header.')) continue;
    const value = (match[2] ?? '').replace(/^"|"$/g, '');
    const domain = value.slice(value.lastIndexOf('@') + 1).toLowerCase();
    if (domain !== '' && !domain.includes('"')) return domain.replace(/\.$/, '');
  }
  return undefined;
};

const notePassed = (passed: VerifiedDomains, method: Method, result: string, text: string): void => {
  if (result !== 'pass' || (method !== 'dkim' && method !== 'spf')) return;
  const domain = passedDomainOf(method, text);
  if (domain !== undefined && passed[method].length < MAX_PASSED && !passed[method].includes(domain))
    passed[method].push(domain);
};

/**
 * One header value: its authserv-id and the result of each method it reports (DKIM: pass if any signature passed),
 * each with the reason written beside that very result.
 */
export const parseAuthResults = (value: string): ParsedResults => {
  const [head, ...rest] = splitSegments(value);
  const headText = head?.text.trim() ?? '';
  const named = !headText.includes('=');
  const id = named ? headText.split(/\s+/)[0]?.replace(/^"|"$/g, '').toLowerCase() : undefined;
  const authservId = id && id.length <= MAX_AUTHSERV_ID ? id : undefined;
  const results: Partial<Record<Method, string>> = {};
  const reasons: Partial<Record<Method, string>> = {};
  const passed: VerifiedDomains = { dkim: [], spf: [] };
  for (const segment of named || !head ? rest : [head, ...rest]) {
    const match = RESINFO.exec(segment.text);
    if (!match) continue;
    const method = (match[1] ?? '').toLowerCase() as Method;
    const result = (match[2] ?? '').toLowerCase();
    if (!METHODS.includes(method) || !RESULT.test(result)) continue;
    notePassed(passed, method, result, segment.text);
    const seen = results[method];
    if (seen === undefined || (method === 'dkim' && result === 'pass' && seen !== 'pass')) {
      results[method] = result;
      const reason = reasonOf(segment, match);
      if (reason === null) delete reasons[method];
      else reasons[method] = reason;
    }
  }
  return { authservId, results, reasons, passed };
};

/**
 * The receiving side's verdict, or null when the copy does not demonstrably carry one (see AuthTrust): its headers
 * are the topmost ones, so the topmost must be its own; a trusted id lower down, below any other header, came with
 * the message. Results come from one header, never merged across headers or ids; by exact id, never a suffix.
 */
export const authVerdictOf = (block: string, trust: AuthTrust | undefined): AuthVerdict | null => {
  const own = receiverResultsOf(block, trust);
  return own === null ? null : verdictOf(own, own.authservId ?? null);
};

/**
 * The domains the receiving side itself verified (its own header, chosen as authVerdictOf chooses it), or null where
 * it wrote none it is trusted for: a DKIM-Signature or Return-Path anywhere else in the block proves nothing.
 */
export const verifiedDomainsOf = (block: string, trust: AuthTrust | undefined): VerifiedDomains | null =>
  receiverResultsOf(block, trust)?.passed ?? null;

const receiverResultsOf = (block: string, trust: AuthTrust | undefined): ParsedResults | null => {
  if (!trust || (trust.ids.length === 0 && !trust.unnamedTopmost)) return null;
  const values = valuesInBlock(block, AUTH_RESULTS_HEADER, trust.methodIds ? MAX_AUTH_HEADERS : 1);
  const top = values[0] === undefined ? undefined : parseAuthResults(values[0]);
  if (!top) return null;
  if (trust.unnamedTopmost)
    // Exchange prepends its own above the message's headers; without its mark it took nothing in (receiverMarks.ts).
    return top.authservId === undefined && microsoftMarkIn(block) !== -1 ? top : null;
  const order = trust.ids.map((id) => id.toLowerCase());
  if (!trust.methodIds) return top.authservId && order.includes(top.authservId) ? top : null;
  return perMethodResults(values, order, trust.methodIds);
};

/**
 * One header per method, each with its own id (iCloud): read down the topmost run of the receiver's ids in the order
 * it writes them; an unknown, repeated or out-of-order id ends the run, and each method comes only from its own id.
 */
const perMethodResults = (
  values: readonly string[],
  order: readonly string[],
  methodIds: NonNullable<AuthTrust['methodIds']>,
): ParsedResults | null => {
  const read: Omit<ParsedResults, 'authservId'> = { results: {}, reasons: {}, passed: { dkim: [], spf: [] } };
  let authservId: string | undefined;
  let last = -1;
  for (const value of values) {
    const parsed = parseAuthResults(value);
    const rank = parsed.authservId === undefined ? -1 : order.indexOf(parsed.authservId);
    if (rank <= last) break;
    last = rank;
    for (const method of METHODS) {
      if (methodIds[method]?.toLowerCase() !== parsed.authservId || parsed.results[method] === undefined)
        continue;
      read.results[method] = parsed.results[method];
      read.reasons[method] = parsed.reasons[method];
      if (method === 'dkim' || method === 'spf') read.passed[method] = parsed.passed[method];
      authservId ??= parsed.authservId;
    }
  }
  return authservId === undefined ? null : { ...read, authservId };
};

const verdictOf = (
  { results, reasons }: Omit<ParsedResults, 'authservId'>,
  authservId: string | null,
): AuthVerdict => ({
  spf: results.spf ?? null,
  dkim: results.dkim ?? null,
  dmarc: results.dmarc ?? null,
  arc: results.arc ?? null,
  authserv_id: authservId,
  reasons: {
    spf: reasons.spf ?? null,
    dkim: reasons.dkim ?? null,
    dmarc: reasons.dmarc ?? null,
    arc: reasons.arc ?? null,
  },
});
