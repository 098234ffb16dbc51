// Owns an API key's webhook secrets (Standard Webhooks `whsec_<base64>`): generating one, rotating with an overlap in
// which old and new both sign, and which of them sign at a given moment.
import { randomBytes } from 'node:crypto';

export interface WebhookSecret {
  secret: string;
  createdAt: number;
  /** Set when a newer secret replaced it: it signs until then, beside the newer one. */
  expiresAt?: number;
}

const PREFIX = 'whsec_';
/** How long a replaced secret keeps signing, so receivers can switch without losing a delivery. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
/** Secrets kept per key at once; rotating more often than overlaps end drops the oldest. */
const MAX_SECRETS = 3;

export const generateWebhookSecret = (): string => `${PREFIX}${randomBytes(32).toString('base64')}`;

/** The secrets that sign at `now`, newest first. */
export const signingSecrets = (secrets: readonly WebhookSecret[], now: number): string[] =>
  [...secrets]
    .filter((secret) => secret.expiresAt === undefined || now < secret.expiresAt)
    .sort((a, b) => b.createdAt - a.createdAt)
    .map((secret) => secret.secret);

/** The key's secrets after a rotation at `now`: `fresh` added, each current one signing for `overlapMs` more. */
export const rotatedSecrets = (
  secrets: readonly WebhookSecret[],
  fresh: string,
  now: number,
  overlapMs: number,
): WebhookSecret[] => {
  const live = secrets
    .filter((secret) => secret.expiresAt === undefined || now < secret.expiresAt)
    .map((secret) => ({
      ...secret,
      expiresAt: Math.min(secret.expiresAt ?? Number.POSITIVE_INFINITY, now + overlapMs),
    }))
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, MAX_SECRETS - 1);
  return [{ secret: fresh, createdAt: now }, ...live];
};

/** Where each key's webhook secrets are kept (beside its key record, by key id). */
export interface WebhookSecretStore {
  secretsOf(keyId: string): Promise<WebhookSecret[]>;
  /** Stores a key's first secret; false (nothing written) if it has one already. */
  createFirst(keyId: string, secret: string, now: number): Promise<boolean>;
  /** Replaces the key's secrets with `next`, only if they are still `current` (so two rotations cannot interleave). */
  replace(keyId: string, current: readonly WebhookSecret[], next: readonly WebhookSecret[]): Promise<boolean>;
}
