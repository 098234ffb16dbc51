// Owns the envelope sender of a stored message without --from: the address of its From header, read with
// nodemailer's address parser (the same library that sends it), from the header section only.
import addressparser from 'nodemailer/lib/addressparser';
import { InvalidInputError } from '../../domain/errors';

/** The first address of the From header of a base64 message that checkMonitorMessage accepted. */
export const addressOfFrom = (emlBase64: string): string => {
  const text = Buffer.from(emlBase64, 'base64').toString('utf8');
  const end = text.search(/\r?\n\r?\n/);
  const lines = text.slice(0, end === -1 ? text.length : end).split(/\r?\n/);
  const start = lines.findIndex((line) => line.toLowerCase().startsWith('from:'));
  if (start === -1) throw new InvalidInputError('the message has no From header: give --from');
  let value = (lines[start] ?? '').slice(5);
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith(' ') && !line.startsWith('\t')) break;
    value += line;
  }
  const first = addressparser(value, { flatten: true })[0];
  if (!first?.address) throw new InvalidInputError('the From header names no address: give --from');
  return first.address;
};
