// Owns reading the receiving provider's own Authentication-Results (RFC 8601) from a copy's header block: only from
// headers whose authserv-id the account trusts, topmost first, with bounded effort on whatever the sender wrote.
import type { AuthTrust } from '../domain/receivingTrust';
import type { AuthVerdict } from '../domain/report';
import { fieldAt, unfolded } from './headers';

export type { AuthTrust } from '../domain/receivingTrust';

export const AUTH_RESULTS_HEADER = 'authentication-results';

/** Headers looked at, topmost first; a real delivery has a handful (iCloud writes one per method). */
export const MAX_AUTH_HEADERS = 16;
/** Characters of one header value read; the rest is ignored, as no real result needs it. */
export const MAX_AUTH_VALUE = 4096;
/** An authserv-id is a host name or a token; longer ones are junk. */
export const MAX_AUTHSERV_ID = 128;
const RESULT = /^[a-z]{1,20}$/;
const METHODS = ['spf', 'dkim', 'dmarc', 'arc'] as const;
type Method = (typeof METHODS)[number];

/** Every value of `name` in the block, topmost first, at most `max` of them. */
export const valuesInBlock = (block: string, name: string, max: number): string[] => {
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

/**
 * A value without its comments (nested, RFC 5322 CFWS), split at the semicolons outside quoted strings: one pass,
 * linear in the (capped) length whatever the nesting.
 */
export const segmentsOf = (value: string): string[] => {
  const segments: string[] = [];
  let current = '';
  let depth = 0;
  let quoted = false;
  for (let at = 0; at < value.length; at++) {
    const char = value[at] ?? '';
    if (char === '\\' && (quoted || depth > 0)) {
      if (!depth) current += value.slice(at, at + 2);
      at++;
    } else if (quoted) {
      current += char;
      if (char === '"') quoted = false;
    } else if (char === '(') depth++;
    else if (char === ')') depth = Math.max(0, depth - 1);
    else if (depth > 0) continue;
    else if (char === '"') {
      quoted = true;
      current += char;
    } else if (char === ';') {
      segments.push(current.trim());
      current = '';
    } else current += char;
  }
  segments.push(current.trim());
  return segments;
};

interface ParsedResults {
  /** Lower-cased; undefined where the header names none (Microsoft's form, or junk). */
  authservId: string | undefined;
  results: Partial<Record<Method, string>>;
}

/** One header value: its authserv-id and the result of each method it reports (DKIM: pass if any signature passed). */
export const parseAuthResults = (value: string): ParsedResults => {
  const [head = '', ...rest] = segmentsOf(value);
  const named = !head.includes('=');
  const id = named ? head.split(/\s+/)[0]?.replace(/^"|"$/g, '').toLowerCase() : undefined;
  const authservId = id && id.length <= MAX_AUTHSERV_ID ? id : undefined;
  const results: Partial<Record<Method, string>> = {};
  for (const segment of named ? rest : [head, ...rest]) {
    const match = /^([a-z-]+)(?:\/\d+)?\s*=\s*([a-z]+)/i.exec(segment);
    if (!match) continue;
    const method = (match[1] ?? '').toLowerCase() as Method;
    const result = (match[2] ?? '').toLowerCase();
    if (!METHODS.includes(method) || !RESULT.test(result)) continue;
    const seen = results[method];
    if (seen === undefined || (method === 'dkim' && result === 'pass')) results[method] = result;
  }
  return { authservId, results };
};

const trusts = (trust: AuthTrust, id: string): boolean =>
  trust.ids.some((own) => {
    const wanted = own.toLowerCase();
    return wanted.startsWith('.') ? id.endsWith(wanted) && id.length > wanted.length : id === wanted;
  });

/**
 * The receiving side's verdict, or null when none of its own headers is there. Topmost first: each trusted
 * authserv-id counts once, by its topmost header (a lower one with the same id came with the message), and a method
 * already read from a higher trusted header is not read again.
 */
export const authVerdictOf = (block: string, trust: AuthTrust | undefined): AuthVerdict | null => {
  if (!trust || (trust.ids.length === 0 && !trust.unnamedTopmost)) return null;
  const values = valuesInBlock(block, AUTH_RESULTS_HEADER, MAX_AUTH_HEADERS);
  if (trust.unnamedTopmost) {
    const top = values[0] === undefined ? undefined : parseAuthResults(values[0]);
    if (top && top.authservId === undefined) return verdictOf(top.results, null);
  }
  const seenIds = new Set<string>();
  let authservId: string | undefined;
  const merged: Partial<Record<Method, string>> = {};
  for (const value of values) {
    const parsed = parseAuthResults(value);
    const id = parsed.authservId;
    if (id === undefined || seenIds.has(id) || !trusts(trust, id)) continue;
    seenIds.add(id);
    authservId ??= id;
    for (const method of METHODS) merged[method] ??= parsed.results[method];
  }
  return authservId === undefined ? null : verdictOf(merged, authservId);
};

const verdictOf = (results: Partial<Record<Method, string>>, authservId: string | null): AuthVerdict => ({
  spf: results.spf ?? null,
  dkim: results.dkim ?? null,
  dmarc: results.dmarc ?? null,
  arc: results.arc ?? null,
  authserv_id: authservId,
});
