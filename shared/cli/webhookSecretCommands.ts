// Owns the operator's `keys rotate-webhook-secret`: a new webhook secret for a key, shown once, while the old one
// keeps signing beside it for an overlap, so receivers switch without missing a delivery.
import { InvalidInputError } from '../domain/errors';
import {
  DEFAULT_ROTATION_OVERLAP_MS,
  generateWebhookSecret,
  rotatedSecrets,
  type WebhookSecretStore,
} from '../webhooks';
import { parseExpiry } from './duration';

export interface SecretContext {
  secrets: WebhookSecretStore;
  keys: { list(): Promise<{ keyId: string }[]> };
  out: (text: string) => void;
  json: boolean;
  now: number;
}

/** Issues a key's first secret (keys create); the plaintext is returned to be shown once. */
export const issueFirstSecret = async (secrets: WebhookSecretStore, keyId: string, now: number) => {
  const secret = generateWebhookSecret();
  if (!(await secrets.createFirst(keyId, secret, now)))
    throw new Error(`key ${keyId} has a webhook secret already`);
  return secret;
};

export const rotateWebhookSecret = async (
  ctx: SecretContext,
  keyId: string | undefined,
  overlap: string | undefined,
): Promise<number> => {
  if (!keyId) throw new InvalidInputError('keys rotate-webhook-secret needs a key id (see keys list)');
  if (!(await ctx.keys.list()).some((key) => key.keyId === keyId))
    throw new InvalidInputError(`no key with id ${keyId}`);
  const overlapMs = overlap ? parseExpiry(overlap, 0) : DEFAULT_ROTATION_OVERLAP_MS;
  const secret = generateWebhookSecret();
  const current = await ctx.secrets.secretsOf(keyId);
  const stored =
    current.length === 0
      ? await ctx.secrets.createFirst(keyId, secret, ctx.now)
      : await ctx.secrets.replace(keyId, current, rotatedSecrets(current, secret, ctx.now, overlapMs));
  if (!stored)
    throw new Error(`the webhook secrets of key ${keyId} changed meanwhile; run the command again`);
  const until = new Date(ctx.now + overlapMs).toISOString();
  ctx.out(
    ctx.json
      ? JSON.stringify({ key_id: keyId, webhook_secret: secret, previous_secrets_sign_until: until })
      : `${secret}\n(new webhook secret of key ${keyId}; shown once; the previous one also signs until ${until})`,
  );
  return 0;
};
