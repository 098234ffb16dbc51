// Owns one account's credential item: its entry sealed with AES-256-GCM under the item key kept in the credentials
// secret, bound to its address (a sealed entry moved to another account's item does not open), with a version for
// compare-and-set writes.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { normaliseAccountEmail } from '../../domain/address';
import { parseJsonText } from '../../domain/jsonText';
import { problemsOf } from '../../domain/problems';
import { credentialKey } from '../dynamo/keys';
import { type AccountEntry, accountEntrySchema } from './accountEntrySchema';

const CIPHER = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A fresh item key, as the secret stores it (base64 of 32 random bytes). */
export const newItemKey = (): string => randomBytes(KEY_BYTES).toString('base64');

/** The key's bytes; a value of the wrong length names the problem, never the value. */
export const itemKeyBytes = (encoded: string): Buffer => {
  const key = Buffer.from(encoded, 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`the credentials secret's itemKey is not ${KEY_BYTES} bytes`);
  return key;
};

export interface CredentialItem {
  entry: AccountEntry;
  /** Raised by one on every write; a write names the version it read. */
  version: number;
}

const aadOf = (email: string) => Buffer.from(`CREDS#${email}`, 'utf8');

export const credentialToItem = (entry: AccountEntry, key: Buffer, version: number) => {
  const email = normaliseAccountEmail(entry.email);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv);
  cipher.setAAD(aadOf(email));
  const body = Buffer.concat([cipher.update(JSON.stringify(entry), 'utf8'), cipher.final()]);
  return {
    ...credentialKey(email),
    version,
    sealed: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'),
  };
};

/** Opens an item; an altered item or a wrong key fails naming the account only (never a byte of the entry). */
export const credentialFromItem = (
  email: string,
  item: Record<string, unknown>,
  key: Buffer,
): CredentialItem => {
  const account = normaliseAccountEmail(email);
  const sealed = typeof item.sealed === 'string' ? Buffer.from(item.sealed, 'base64') : Buffer.alloc(0);
  if (sealed.length <= IV_BYTES + TAG_BYTES || typeof item.version !== 'number') {
    throw new Error(`the credential item of ${account} is malformed`);
  }
  let text: string;
  try {
    const decipher = createDecipheriv(CIPHER, key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(aadOf(account));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new Error(`the credential item of ${account} does not open with the secret's itemKey`);
  }
  const parsed = accountEntrySchema.safeParse(parseJsonText(text, `the credential item of ${account}`));
  if (!parsed.success) {
    throw new Error(
      `the credential item of ${account} is malformed at ${problemsOf(parsed.error).join('; ')}`,
    );
  }
  return { entry: parsed.data, version: item.version };
};
