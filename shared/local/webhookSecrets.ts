// Owns giving every usable API key of the local store a webhook secret at start: keys from config/local.json (and
// keys issued on a first run) get one the first time npm start sees them, printed once, kept in the local store.
import type { ApiKey } from '../domain/apiKey';
import { isUsable } from '../domain/apiKey';
import type { Clock } from '../domain/clock';
import { generateWebhookSecret, type WebhookSecretStore } from '../webhooks';

export interface IssuedWebhookSecret {
  keyId: string;
  scope: string;
  secret: string;
}

/** Creates a secret for each usable key that has none; returns the ones created now (their only plaintext copy). */
export const ensureWebhookSecrets = async (
  keys: { list(): Promise<ApiKey[]> },
  secrets: Pick<WebhookSecretStore, 'secretsOf' | 'createFirst'>,
  clock: Clock,
): Promise<IssuedWebhookSecret[]> => {
  const issued: IssuedWebhookSecret[] = [];
  for (const key of await keys.list()) {
    if (!isUsable(key, clock.now()) || (await secrets.secretsOf(key.keyId)).length > 0) continue;
    const secret = generateWebhookSecret();
    if (await secrets.createFirst(key.keyId, secret, clock.now()))
      issued.push({ keyId: key.keyId, scope: key.scope, secret });
  }
  return issued;
};
