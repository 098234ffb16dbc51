// Owns the IMAP syntax of the scripted IMAP server (scriptedImapServer.ts): quoting and tokenizing command text,
// IMAP dates, UID sets, LIST patterns, parenthesised lists and the header fields a FETCH asks for.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export const quote = (text: string) => `"${text.replace(/[\\"]/g, '\\$&')}"`;

/** Quoted strings (unquoted), parentheses, and atoms; `BODY.PEEK[...]` stays one atom, brackets and all. */
export const tokenize = (text: string): string[] =>
  [...text.matchAll(/"((?:[^"\\]|\\.)*)"|([()])|([^\s()"[\]]+(?:\[[^\]]*\][^\s()"]*)?)/g)].map((match) =>
    match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : (match[2] ?? match[3] ?? ''),
  );

const imapDate = (ms: number) => {
  const date = new Date(ms);
  return `${String(date.getUTCDate()).padStart(2, '0')}-${MONTHS[date.getUTCMonth()]}-${date.getUTCFullYear()}`;
};
export const internalDateOf = (ms: number) =>
  `${imapDate(ms)} ${new Date(ms).toISOString().slice(11, 19)} +0000`;
export const dayOf = (ms: number) => ms - (ms % 86_400_000);
export const parseDate = (text: string) => {
  const [day, month, year] = text.split('-');
  return Date.UTC(Number(year), MONTHS.indexOf(month ?? ''), Number(day));
};

/** A UID set such as `3,5:7` or `12:*`; `*` is the highest UID, so `N:*` matches it even when it is below N. */
export const inSet = (set: string, highest: number) => (uid: number) =>
  set.split(',').some((part) => {
    const [from = 0, to = from] = part.split(':').map((end) => (end === '*' ? highest : Number(end)));
    return uid >= Math.min(from, to) && uid <= Math.max(from, to);
  });

/** Only the requested fields of a header block, as a server answers BODY[HEADER.FIELDS (...)]. */
/** A message's whole header block as IMAP's BODY[HEADER] gives it: its fields, CRLF line ends, an empty line. */
export const headerBlock = (headers: string) =>
  `${headers
    .replace(/\r?\n$/, '')
    .split(/\r?\n/)
    .join('\r\n')}\r\n\r\n`;

export const headerFields = (headers: string, names: string[]) => {
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  const fields = headers.replace(/\r?\n$/, '').split(/\r?\n(?![ \t])/);
  const kept = fields.filter((field) => wanted.has(field.slice(0, field.indexOf(':')).trim().toLowerCase()));
  return `${kept.map((field) => `${field}\r\n`).join('')}\r\n`;
};

/** An IMAP LIST pattern as a matcher: `*` matches anything, `%` anything but the delimiter. */
export const patternOf = (pattern: string, delimiter: string) => {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\/]/g, '\\$&');
  const notDelimiter = `[^${delimiter.replace(/[\]\\^-]/g, '\\$&')}]*`;
  const regex = new RegExp(`^${escaped.replace(/\*/g, '.*').replace(/%/g, notDelimiter)}$`);
  return (path: string) =>
    regex.test(path) || (pattern.toUpperCase() === 'INBOX' && path.toUpperCase() === 'INBOX');
};

/** The items of a parenthesised list starting at `open`, and the index after its closing parenthesis. */
export const listAt = (tokens: string[], open: number): { items: string[]; end: number } => {
  const items: string[] = [];
  let depth = 0;
  for (let index = open; index < tokens.length; index++) {
    const token = tokens[index] ?? '';
    if (token === '(') depth++;
    else if (token === ')') depth--;
    if (depth === 0) return { items, end: index + 1 };
    if (index > open) items.push(token);
  }
  return { items, end: tokens.length };
};
