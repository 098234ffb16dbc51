// Owns the `v1.` sealing used before KMS: AES-256-GCM under the item key (the credentials secret's old `itemKey` on
// AWS, the local key file under npm start), bound to a context. Kept to open what it sealed: `reseal` moves it.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { itemKeyBytes } from './credentialItem';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1.';

/** `itemKey` gives the key as the secret stores it (base64 of 32 bytes), read once and kept. */
export class ItemKeySealer {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly itemKey: () => Promise<string>) {}

  private keyBytes(): Promise<Buffer> {
    this.key ??= this.itemKey().then(itemKeyBytes);
    return this.key;
  }

  async seal(plain: string, context: string): Promise<string> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, await this.keyBytes(), iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** An altered value, another context or a wrong key fails naming the context only, never a byte of the value. */
  async open(sealed: string, context: string): Promise<string> {
    const bytes = sealed.startsWith(VERSION)
      ? Buffer.from(sealed.slice(VERSION.length), 'base64')
      : undefined;
    if (!bytes || bytes.length <= IV_BYTES + TAG_BYTES)
      throw new Error(`the sealed value of ${context} is malformed`);
    try {
      const decipher = createDecipheriv(CIPHER, await this.keyBytes(), bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new Error(`the sealed value of ${context} does not open with the deployment's item key`);
    }
  }
}
