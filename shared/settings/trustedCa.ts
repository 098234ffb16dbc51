// Owns reading IMAP_CA_FILE: the certificates the IMAP connections trust beside Node's roots, capped before reading.
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { ConfigError } from './envSchema';

/** A CA file holds a few certificates: a larger one is refused before it is read. */
const MAX_CA_FILE_BYTES = 64 * 1024;
const MAX_CA_CERTIFICATES = 16;
const PEM_BEGIN = '-----BEGIN CERTIFICATE-----';
const PEM_END = '-----END CERTIFICATE-----';

/**
 * IMAP_CA_FILE: a path to PEM certificates (a private CA, or the test mail stack's) the IMAP connections trust beside
 * Node's roots. Read and parsed once here; an error names the setting and what is wrong, never the file's text.
 */
export const readTrustedCa = (path: string | undefined): string | undefined => {
  if (path === undefined || path === '') return undefined;
  const refuse = (why: string) =>
    new ConfigError(`invalid configuration in the environment: IMAP_CA_FILE ${why}`);
  let text: string;
  try {
    if (statSync(path).size > MAX_CA_FILE_BYTES) throw refuse('is larger than a CA file (64 KB)');
    text = readFileSync(path, 'latin1');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw refuse(`cannot be read (${(error as { code?: string }).code ?? 'unreadable'})`);
  }
  const blocks: string[] = [];
  for (let from = text.indexOf(PEM_BEGIN); from !== -1; from = text.indexOf(PEM_BEGIN, from + 1)) {
    const end = text.indexOf(PEM_END, from);
    if (end === -1 || blocks.length === MAX_CA_CERTIFICATES)
      throw refuse('holds a cut or surplus certificate');
    blocks.push(text.slice(from, end + PEM_END.length));
  }
  if (blocks.length === 0) throw refuse('holds no PEM certificate');
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw refuse('holds a certificate that does not parse');
    }
  }
  return `${blocks.join('\n')}\n`;
};
