// Owns the sealing port: how a secret of the deployment (an account's credentials, an API key's webhook secrets, a
// monitor's message) is sealed and opened again, bound to what it belongs to, whatever holds the key.

/**
 * What a sealed value is for (pinned per role in the key's policy: the scanner may seal only `oauth-credentials`)
 * and the table item it belongs to (a value copied to another item does not open).
 */
export const SEAL_PURPOSES = [
  'credentials',
  'oauth-credentials',
  'webhook-secrets',
  'monitor-message',
] as const;
export type SealPurpose = (typeof SEAL_PURPOSES)[number];

export interface SealContext {
  purpose: SealPurpose;
  item: string;
}

/** KMS envelope encryption on AWS, the local key file under npm start; the key is never in the table. */
export interface Sealer {
  seal(plain: string, context: SealContext): Promise<string>;
  /** Fails naming the item only, never a byte of the value. */
  open(sealed: string, context: SealContext): Promise<string>;
}
