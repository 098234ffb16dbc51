// A credential item as the store wrote it before KMS (what `reseal` moves): AES-256-GCM under the secret's itemKey,
// bound to the item's address, no `v2.` prefix and no purpose.
import { createCipheriv, randomBytes } from 'node:crypto';
import type { AccountEntry } from '../../shared/adapters/credentials/accountEntrySchema';
import { credentialKey } from '../../shared/adapters/dynamo/keys';

export const legacyCredentialItem = (entry: AccountEntry, itemKey: string, version: number) => {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(itemKey, 'base64'), iv);
  cipher.setAAD(Buffer.from(credentialKey(entry.email).pk, 'utf8'));
  const body = Buffer.concat([cipher.update(JSON.stringify(entry), 'utf8'), cipher.final()]);
  return {
    ...credentialKey(entry.email),
    version,
    sealed: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'),
  };
};
