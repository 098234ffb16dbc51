// IMAP_CA_FILE: read and parsed once where the settings are read; a file that is missing, too large, or holds no
// certificate fails the start with the setting's name and the reason, never the file's text.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocalSettings, loadScanConfig } from '../../shared/config';
import { readTrustedCa } from '../../shared/settings/trustedCa';

let dir: string;
// A CA certificate alone (its key was thrown away): enough to parse, never to sign.
const caPem = readFileSync(join(import.meta.dirname, '../fixtures/test-ca.pem'), 'utf8');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'imap-ca-'));
  writeFileSync(join(dir, 'ca.pem'), caPem);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const SCAN_ENV = {
  TABLE_NAME: 't',
  AWS_REGION: 'local',
  CREDENTIALS_SECRET_ID: 's',
  SEALING_KEY_ARN: 'k',
  AWS_LAMBDA_FUNCTION_NAME: 'f',
};

describe('IMAP_CA_FILE', () => {
  it('is the certificates of the file, for the scanner on Lambda and npm start alike; unset is none', () => {
    const path = join(dir, 'ca.pem');
    expect(readTrustedCa(path)?.trim()).toBe(caPem.trim());
    expect(loadScanConfig({ ...SCAN_ENV, IMAP_CA_FILE: path }).imapTrustedCa?.trim()).toBe(caPem.trim());
    expect(loadLocalSettings({ IMAP_CA_FILE: path }).imapTrustedCa?.trim()).toBe(caPem.trim());
    expect(loadScanConfig(SCAN_ENV).imapTrustedCa).toBeUndefined();
    expect(readTrustedCa('')).toBeUndefined();
  });

  it('keeps only the certificates: a key or comments around them are not trusted or kept', () => {
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const path = file('bundle.pem', `# the test CA\n${key}${caPem}trailing words\n`);
    const read = readTrustedCa(path) ?? '';
    expect(read.trim()).toBe(caPem.trim());
    expect(read).not.toContain('PRIVATE KEY');
  });

  it('refuses a missing, oversized, empty, cut or unparsable file, naming the setting but none of its text', () => {
    const secretish = 'hunter2-password-in-the-wrong-file';
    const cases: [string, RegExp][] = [
      [join(dir, 'absent.pem'), /IMAP_CA_FILE cannot be read \(ENOENT\)/],
      [file('huge.pem', Buffer.alloc(65 * 1024, 0x41)), /IMAP_CA_FILE is larger than a CA file/],
      [file('none.pem', `password=${secretish}\n`), /IMAP_CA_FILE holds no PEM certificate/],
      [file('cut.pem', caPem.slice(0, caPem.length - 30)), /IMAP_CA_FILE holds a cut or surplus certificate/],
      [
        file('bad.pem', `-----BEGIN CERTIFICATE-----\n${secretish}\n-----END CERTIFICATE-----\n`),
        /IMAP_CA_FILE holds a certificate that does not parse/,
      ],
    ];
    for (const [path, message] of cases) {
      let thrown: unknown;
      try {
        readTrustedCa(path);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect((thrown as Error).message).toMatch(message);
      expect((thrown as Error).message).not.toContain(secretish);
    }
    expect(() => loadLocalSettings({ IMAP_CA_FILE: join(dir, 'absent.pem') })).toThrow(/IMAP_CA_FILE/);
  });
});
