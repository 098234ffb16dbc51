// Owns the one message a check sends: read from an .eml file (sent unchanged, the addresses only in the envelope)
// or composed from --from/--subject/--html-body/--text, with every address in BCC (default) or in To.
import { createPrivateKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type Mail from 'nodemailer/lib/mailer';
import type { DkimOptions, MessageSource } from './options';

/** Something the command could not do with its input files: exit 1, one line. */
export class MessageError extends Error {
  override name = 'MessageError';
}

export type LoadedMessage =
  | { kind: 'raw'; raw: Buffer; envelopeFrom: string }
  | { kind: 'compose'; from: string; subject: string; html: string | undefined; text: string | undefined };

const read = async (path: string, what: string): Promise<Buffer> => {
  try {
    return await readFile(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new MessageError(`cannot read ${what} ${path}: ${reason}`);
  }
};

const FIELD_LINE = /^[\x21-\x39\x3b-\x7e]+:/;

/** The address in a From header value: the part in angle brackets, else the first word holding an @. */
const addressIn = (value: string): string | undefined =>
  /<([^<>\s]+@[^<>\s]+)>/.exec(value)?.[1] ?? /[^\s<>,;:"()]+@[^\s<>,;:"()]+/.exec(value)?.[0];

/** The header block of a raw message, unfolded, one field per entry. */
const headerFields = (raw: Buffer): string[] => {
  const text = raw.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const block = end === -1 ? text : text.slice(0, end);
  return block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
};

export const loadMessage = async (source: MessageSource): Promise<LoadedMessage> => {
  if (source.kind === 'eml') {
    const raw = await read(source.path, 'the message');
    const fields = headerFields(raw);
    if (raw.length === 0 || !FIELD_LINE.test(fields[0] ?? ''))
      throw new MessageError(`${source.path} is not an email message: it does not start with a header field`);
    const fromField = fields.find((field) => /^from:/i.test(field));
    const envelopeFrom = source.envelopeFrom ?? (fromField ? addressIn(fromField.slice(5)) : undefined);
    if (!envelopeFrom)
      throw new MessageError(`${source.path} has no From address; pass --from for the envelope sender`);
    return { kind: 'raw', raw, envelopeFrom };
  }
  const html =
    source.html && ('inline' in source.html ? source.html.inline : await fileText(source.html.file));
  const text =
    source.text && ('inline' in source.text ? source.text.inline : await fileText(source.text.file));
  return { kind: 'compose', from: source.from, subject: source.subject, html, text };
};

const fileText = async (path: string) => (await read(path, 'the body file')).toString('utf8');

/** The nodemailer message sending `message` ONCE to every address of the check. */
export const mailFor = (message: LoadedMessage, addresses: string[], inTo: boolean): Mail.Options => {
  if (message.kind === 'raw')
    // Unchanged: nodemailer sends `raw` as it is; the addresses go only into RCPT TO.
    return { raw: message.raw, envelope: { from: message.envelopeFrom, to: addresses } };
  return {
    from: message.from,
    subject: message.subject,
    ...(message.html === undefined ? {} : { html: message.html }),
    ...(message.text === undefined ? {} : { text: message.text }),
    // BCC leaves no recipient in the headers; a To naming the empty group is what mail clients write then.
    ...(inTo ? { to: addresses } : { to: 'undisclosed-recipients:;', bcc: addresses }),
  };
};

/** nodemailer's DKIM signing options from --dkim-key/--dkim-selector/--dkim-domain; the key file must hold a private key. */
export const loadDkim = async (dkim: DkimOptions): Promise<NonNullable<Mail.Options['dkim']>> => {
  const privateKey = (await read(dkim.keyFile, 'the DKIM key')).toString('utf8');
  try {
    createPrivateKey(privateKey);
  } catch {
    throw new MessageError(`${dkim.keyFile} is not a PEM private key (--dkim-key)`);
  }
  return { domainName: dkim.domain, keySelector: dkim.selector, privateKey };
};
