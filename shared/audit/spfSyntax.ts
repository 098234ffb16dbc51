// Owns the SPF record's syntax (RFC 7208 section 12, the ABNF): what mailauth reads past without complaint (a CIDR
// over 32, an unknown mechanism, a bad macro, a numeric top label) is a permerror for the whole record (section 4.6).
// Patterns are anchored and linear: each term is at most a record long and is tested against fixed alternatives.

const MAX_TERMS = 64;

const MACRO_EXPAND = /%(?:\{[slodiphv]\d*r?[.\-+,/_=]*\}|%|_|-)/gi;
/** A macro-string once each macro-expand is taken out: only macro-literal characters may remain. */
const macroString = (text: string) => !/[^\x21-\x24\x26-\x7e]/.test(text.replace(MACRO_EXPAND, ''));

/**
 * toplabel (section 7.1): letters and digits with at least one letter, or letters, digits and hyphens with a hyphen,
 * starting and ending in a letter or digit. Tested piecewise on the last label alone: the one pattern that said
 * this, unanchored at its start, backtracked over a long label (quadratic in it).
 */
const isTopLabel = (label: string) =>
  /^[a-z0-9-]+$/i.test(label) &&
  (label.includes('-') ? /^[a-z0-9]/i.test(label) && /[a-z0-9]$/i.test(label) : /[a-z]/i.test(label));
/** domain-end: "." and a top label, then an optional ".". */
const endsInTopLabel = (text: string) => {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  const dot = name.lastIndexOf('.');
  return dot >= 0 && isTopLabel(name.slice(dot + 1));
};
const ENDS_IN_MACRO = /(?:%\{[slodiphv]\d*r?[.\-+,/_=]*\}|%%|%_|%-)$/i;

const domainSpec = (text: string) =>
  text !== '' && macroString(text) && (endsInTopLabel(text) || ENDS_IN_MACRO.test(text));

const IP4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const cidr4 = (text: string) => /^(?:0|[1-9]\d?)$/.test(text) && Number(text) <= 32;
const cidr6 = (text: string) => /^(?:0|[1-9]\d{0,2})$/.test(text) && Number(text) <= 128;

/** Splits a trailing `/digits` off; the rest may end in another "/" (the dual CIDR's "//"). */
const trailingNumber = (text: string): [string, string | undefined] => {
  const at = text.lastIndexOf('/');
  if (at < 0 || !/^\d+$/.test(text.slice(at + 1))) return [text, undefined];
  return [text.slice(0, at), text.slice(at + 1)];
};

/**
 * `[":" domain-spec] [dual-cidr-length]` of a and mx. A domain-spec may hold "/" and ":" (macro-literal), so the
 * CIDR lengths are what trails it: `/n`, `//n` or `/n//n`, read from the end.
 */
const targetAndCidr = (rest: string): boolean => {
  let text = rest;
  let v4: string | undefined;
  let v6: string | undefined;
  const [before, last] = trailingNumber(text);
  if (last !== undefined && before.endsWith('/')) {
    v6 = last;
    text = before.slice(0, -1);
    [text, v4] = trailingNumber(text);
  } else [text, v4] = [before, last];
  if (text !== '' && !(text.startsWith(':') && domainSpec(text.slice(1)))) return false;
  if (v4 !== undefined && !cidr4(v4)) return false;
  return v6 === undefined || cidr6(v6);
};

/** An IPv6 address is at most 45 characters (an embedded IPv4 tail included): longer is refused before parsing. */
const ip6Network = (text: string) =>
  text.length <= 45 && /^[0-9a-f:.]+$/i.test(text) && text.includes(':') && isIp6(text);

/** An IPv6 address in RFC 4291 text form, an embedded IPv4 tail allowed. */
const isIp6 = (text: string) => {
  const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  const head = tail ? `${tail[1]}0:0` : text;
  if (tail && !IP4.test(tail[2] ?? '')) return false;
  const halves = head.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === '' ? [] : half.split(':')));
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return false;
  return halves.length === 2 ? groups.length < 8 : groups.length === 8;
};

const mechanismOk = (name: string, rest: string): boolean => {
  switch (name) {
    case 'all':
      return rest === '';
    case 'include':
    case 'exists':
      return rest.startsWith(':') && domainSpec(rest.slice(1));
    case 'a':
    case 'mx':
      return targetAndCidr(rest);
    case 'ptr':
      return rest === '' || (rest.startsWith(':') && domainSpec(rest.slice(1)));
    case 'ip4': {
      const [network = '', length, extra] = rest.slice(1).split('/');
      return (
        rest.startsWith(':') &&
        IP4.test(network) &&
        extra === undefined &&
        (length === undefined || cidr4(length))
      );
    }
    case 'ip6': {
      const [network = '', length, extra] = rest.slice(1).split('/');
      return (
        rest.startsWith(':') &&
        ip6Network(network) &&
        extra === undefined &&
        (length === undefined || cidr6(length))
      );
    }
    default:
      return false;
  }
};

/** The record's terms (split on spaces), at most `max` + 1: the scan stops there, whatever length follows. */
const termsOf = (record: string, max: number): string[] => {
  const terms: string[] = [];
  for (let at = 0; at < record.length && terms.length <= max; ) {
    const space = record.indexOf(' ', at);
    const end = space < 0 ? record.length : space;
    if (end > at) terms.push(record.slice(at, end));
    at = end + 1;
  }
  return terms;
};

/** The first syntax error of an SPF record, in one sentence; undefined when the record parses. */
export const spfSyntaxError = (record: string): string | undefined => {
  const terms = termsOf(record, MAX_TERMS);
  if (terms.length > MAX_TERMS) return `more than ${MAX_TERMS} terms`;
  const seen = new Set<string>();
  for (const term of terms.slice(1)) {
    const modifier = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
    if (modifier) {
      const name = (modifier[1] ?? '').toLowerCase();
      const value = modifier[2] ?? '';
      if ((name === 'redirect' || name === 'exp') && seen.has(name)) return `${name}= appears twice`;
      seen.add(name);
      const ok = name === 'redirect' || name === 'exp' ? domainSpec(value) : macroString(value);
      if (!ok) return `the modifier ${term.slice(0, 80)} is malformed`;
      continue;
    }
    const bare = term.replace(/^[+\-~?]/, '');
    const name = (/^[a-z0-9]*/i.exec(bare)?.[0] ?? '').toLowerCase();
    if (!mechanismOk(name, bare.slice(name.length))) return `the term ${term.slice(0, 80)} is malformed`;
  }
  return undefined;
};
