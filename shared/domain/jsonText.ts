// Owns reading JSON text that may hold secrets (config files, secrets, stored endpoints): a syntax error is told by
// line, column and kind, found by a scan of our own, because JSON.parse's own message quotes the text around it.

/** A file or secret that is not JSON; its message holds the source's name and a position, never the text. */
class JsonTextError extends Error {
  override name = 'JsonTextError';
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /^[0-9a-fA-F]{4}$/;
const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';

type Found = { at: number; kind: string };

/** Where a string starting at `start` (a quote) ends, or what is wrong with it. */
const scanString = (text: string, start: number): number | Found => {
  let i = start + 1;
  for (;;) {
    const char = text[i];
    if (char === undefined) return { at: i, kind: 'unterminated string' };
    if (char === '"') return i + 1;
    if (char === '\\') {
      const next = text[i + 1];
      if (next === 'u') {
        if (!HEX.test(text.slice(i + 2, i + 6))) return { at: i, kind: 'invalid \\u escape' };
        i += 6;
      } else if (next !== undefined && ESCAPES.has(next)) i += 2;
      else return { at: i, kind: 'invalid escape' };
    } else if (char.charCodeAt(0) < 0x20) return { at: i, kind: 'control character in a string' };
    else i++;
  }
};

/** Where a number starting at `start` ends (RFC 8259 §6), or what is wrong with it. */
const scanNumber = (text: string, start: number): number | Found => {
  let i = start;
  if (text[i] === '-') i++;
  if (text[i] === '0') i++;
  else if (isDigit(text[i])) while (isDigit(text[i])) i++;
  else return { at: i, kind: 'invalid number' };
  if (text[i] === '.') {
    i++;
    if (!isDigit(text[i])) return { at: i, kind: 'invalid number' };
    while (isDigit(text[i])) i++;
  }
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+' || text[i] === '-') i++;
    if (!isDigit(text[i])) return { at: i, kind: 'invalid number' };
    while (isDigit(text[i])) i++;
  }
  return i;
};

/**
 * The first syntax error of `text` (offset and kind), or undefined if it is JSON. One pass, no recursion: nesting
 * lives in an explicit stack, so no input can exhaust the call stack.
 */
export const findJsonSyntaxError = (text: string): Found | undefined => {
  const stack: string[] = [];
  let state: 'value' | 'valueOrEnd' | 'key' | 'keyOrEnd' | 'after' = 'value';
  let i = 0;
  for (;;) {
    while (i < text.length && WHITESPACE.has(text[i] as string)) i++;
    const char = text[i];
    if (state === 'after') {
      const open = stack[stack.length - 1];
      if (open === undefined) return char === undefined ? undefined : { at: i, kind: 'text after the end' };
      if (char === ',') state = open === '{' ? 'key' : 'value';
      else if (char === (open === '{' ? '}' : ']')) stack.pop();
      else if (char === undefined) return { at: i, kind: 'unexpected end' };
      else return { at: i, kind: open === '{' ? "expected ',' or '}'" : "expected ',' or ']'" };
      i++;
      continue;
    }
    if (char === undefined) return { at: i, kind: 'unexpected end' };
    if ((state === 'valueOrEnd' && char === ']') || (state === 'keyOrEnd' && char === '}')) {
      stack.pop();
      state = 'after';
      i++;
      continue;
    }
    if (state === 'key' || state === 'keyOrEnd') {
      if (char !== '"') return { at: i, kind: 'expected a quoted key' };
      const end = scanString(text, i);
      if (typeof end !== 'number') return end;
      i = end;
      while (i < text.length && WHITESPACE.has(text[i] as string)) i++;
      if (text[i] !== ':') return { at: i, kind: "expected ':'" };
      i++;
      state = 'value';
      continue;
    }
    // state is value or valueOrEnd: one value starts here.
    if (char === '{' || char === '[') {
      stack.push(char);
      state = char === '{' ? 'keyOrEnd' : 'valueOrEnd';
      i++;
      continue;
    }
    let end: number | Found;
    if (char === '"') end = scanString(text, i);
    else if (char === '-' || isDigit(char)) end = scanNumber(text, i);
    else {
      const word = ['true', 'false', 'null'].find((literal) => text.startsWith(literal, i));
      end = word ? i + word.length : { at: i, kind: 'unexpected character' };
    }
    if (typeof end !== 'number') return end;
    i = end;
    state = 'after';
  }
};

/** 1-based line and column (in UTF-16 units) of an offset. */
export const lineAndColumn = (text: string, offset: number): { line: number; column: number } => {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
};

/**
 * JSON.parse, but a failure says only `source`, where and what kind of mistake: JSON.parse's own message quotes
 * the text near the error, which in a config file or a secret is a password. Text over `maxChars` is refused
 * before it is parsed.
 */
export const parseJsonText = (text: string, source: string, maxChars = 4 * 1024 * 1024): unknown => {
  if (text.length > maxChars)
    throw new JsonTextError(`${source} is over ${maxChars} characters; refused unread`);
  try {
    return JSON.parse(text);
  } catch {
    const found = findJsonSyntaxError(text);
    if (!found) throw new JsonTextError(`${source} is not valid JSON`);
    const { line, column } = lineAndColumn(text, found.at);
    throw new JsonTextError(`${source} is not valid JSON at line ${line} column ${column} (${found.kind})`);
  }
};
