// Owns checking a monitor's message at creation: at most 1 MB (capped before anything reads it), a header section
// RFC 5322 accepts (names, folding, line length), exactly one From, and no Bcc (every seed would read it).
// Errors name the line and the header, never a value: the message may hold customer data.
import { InvalidInputError } from '../domain/errors';

export const MAX_MESSAGE_BYTES = 1024 * 1024;
/** RFC 5322 §2.1.1: a line is at most 998 characters before CRLF. */
const MAX_LINE = 998;
const ONCE = ['from', 'sender', 'subject', 'date', 'message-id', 'to', 'reply-to'];

export interface MessageFacts {
  from: string;
  subject: string | undefined;
  headerCount: number;
}

const headerEndOf = (text: string): number => {
  const crlf = text.indexOf('\r\n\r\n');
  const lf = text.indexOf('\n\n');
  if (crlf === -1) return lf;
  return lf === -1 ? crlf : Math.min(crlf, lf);
};

/** RFC 5322 §3.6.8: printable US-ASCII but colon, checked character by character. */
const isFieldName = (name: string): boolean => {
  if (name.length === 0 || name.length > 76) return false;
  for (let index = 0; index < name.length; index++) {
    const code = name.charCodeAt(index);
    if (code < 33 || code > 126 || code === 58) return false;
  }
  return true;
};

/** NUL and control characters other than tab are never legal in a header, folded or not. */
const hasControl = (line: string): boolean => {
  for (let index = 0; index < line.length; index++) {
    const code = line.charCodeAt(index);
    if ((code < 32 && code !== 9) || code === 127) return true;
  }
  return false;
};

interface Field {
  name: string;
  value: string;
}

const fieldsOf = (head: string): Field[] => {
  const fields: Field[] = [];
  const lines = head.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const where = `header line ${index + 1}`;
    if (line.length > MAX_LINE) throw new InvalidInputError(`${where} is longer than ${MAX_LINE} characters`);
    if (hasControl(line)) throw new InvalidInputError(`${where} holds a control character`);
    const folded = line.startsWith(' ') || line.startsWith('\t');
    const last = fields[fields.length - 1];
    if (folded) {
      if (!last) throw new InvalidInputError('the message starts with a folded line, not a header');
      last.value += line;
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon === -1 ? '' : line.slice(0, colon);
    if (!isFieldName(name)) throw new InvalidInputError(`${where} is not "Name: value"`);
    fields.push({ name: name.toLowerCase(), value: line.slice(colon + 1).trim() });
  }
  return fields;
};

/** Checks a message file's bytes; the size is checked before a byte is decoded. */
export const checkMonitorMessage = (bytes: Uint8Array): MessageFacts => {
  if (bytes.length > MAX_MESSAGE_BYTES)
    throw new InvalidInputError(`the message is ${bytes.length} bytes; a monitor keeps at most 1 MB`);
  if (bytes.length === 0) throw new InvalidInputError('the message is empty');
  const text = Buffer.from(bytes).toString('utf8');
  const end = headerEndOf(text);
  if (end === -1) throw new InvalidInputError('the message has no blank line after its headers');
  const fields = fieldsOf(text.slice(0, end));
  const count = (name: string) => fields.filter((field) => field.name === name).length;
  for (const name of ONCE)
    if (count(name) > 1) throw new InvalidInputError(`the message has more than one ${name} header`);
  if (count('bcc') > 0)
    throw new InvalidInputError('the message has a Bcc header: every seed would read it; remove it');
  const from = fields.find((field) => field.name === 'from')?.value;
  if (!from) throw new InvalidInputError('the message has no From header');
  return {
    from,
    subject: fields.find((field) => field.name === 'subject')?.value,
    headerCount: fields.length,
  };
};
