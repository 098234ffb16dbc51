// Owns one account's credential item: its entry sealed (KMS envelope encryption on AWS) bound to its address and to
// what it is (an OAuth account's, which the scanner may re-seal, or a password account's, which only the admin may),
// with a version for compare-and-set writes. Also opens items sealed before, under the secret's old `itemKey`.
import { createDecipheriv } from 'node:crypto';
import { normaliseAccountEmail } from '../../domain/address';
import { parseJsonText } from '../../domain/jsonText';
import { problemsOf } from '../../domain/problems';
import type { SealContext, Sealer } from '../../domain/sealer';
import { credentialKey } from '../dynamo/keys';
import { type AccountEntry, accountEntrySchema } from './accountEntrySchema';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The old item key's bytes; a value of the wrong length names the problem, never the value. */
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

const contextOf = (email: string, entry: Pick<AccountEntry, 'auth'>): SealContext => ({
  purpose: 'oauth2' in entry.auth ? 'oauth-credentials' : 'credentials',
  item: credentialKey(email).pk,
});

export const credentialToItem = async (entry: AccountEntry, sealer: Sealer, version: number) => {
  const email = normaliseAccountEmail(entry.email);
  const context = contextOf(email, entry);
  return {
    ...credentialKey(email),
    version,
    purpose: context.purpose,
    sealed: await sealer.seal(JSON.stringify(entry), context),
  };
};

const parsedEntry = (account: string, text: string): AccountEntry => {
  const parsed = accountEntrySchema.safeParse(parseJsonText(text, `the credential item of ${account}`));
  if (!parsed.success) {
    throw new Error(
      `the credential item of ${account} is malformed at ${problemsOf(parsed.error).join('; ')}`,
    );
  }
  return parsed.data;
};

/** Whether the item is sealed the current way (else only `legacyCredentialFromItem` opens it). */
export const isSealedItem = (item: Record<string, unknown>): boolean =>
  typeof item.sealed === 'string' && item.sealed.startsWith('v2.');

/**
 * Opens an item; an altered item, another account's, or an entry of another kind than it was sealed as fails naming
 * the account only (never a byte of the entry).
 */
export const credentialFromItem = async (
  email: string,
  item: Record<string, unknown>,
  sealer: Sealer,
): Promise<CredentialItem> => {
  const account = normaliseAccountEmail(email);
  const { purpose, version, sealed } = item;
  if (
    !isSealedItem(item) ||
    typeof version !== 'number' ||
    (purpose !== 'credentials' && purpose !== 'oauth-credentials')
  ) {
    throw new Error(
      `the credential item of ${account} is malformed or sealed under the old item key (run: npm run admin -- reseal)`,
    );
  }
  const entry = parsedEntry(
    account,
    await sealer.open(String(sealed), { purpose, item: credentialKey(account).pk }),
  );
  // The scanner may seal OAuth entries only: a password entry under that purpose is not the admin's.
  if (contextOf(account, entry).purpose !== purpose) {
    throw new Error(`the credential item of ${account} holds another kind of account than it was sealed as`);
  }
  return { entry, version };
};

/** Opens an item sealed with AES-256-GCM under the secret's old `itemKey` (what `reseal` moves). */
export const legacyCredentialFromItem = (
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
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(credentialKey(account).pk, 'utf8'));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new Error(`the credential item of ${account} does not open with the secret's itemKey`);
  }
  return { entry: parsedEntry(account, text), version: item.version };
};
