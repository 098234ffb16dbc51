// Owns the operator's `keys …` commands: issuing an API key (shown once, stored as its hash), listing keys without
// them, and revoking one.

import type { DynamoApiKeyStore } from '../adapters/dynamo/DynamoApiKeyStore';
import { type ApiKey, generateApiKey, isUsable, newApiKeyRecord } from '../domain/apiKey';
import { InvalidInputError } from '../domain/errors';
import type { WebhookSecretStore } from '../webhooks';
import { parseExpiry } from './duration';
import { formatTable } from './listingTable';
import { issueFirstSecret } from './webhookSecretCommands';

export interface KeyContext {
  keys: DynamoApiKeyStore;
  /** Where the key's webhook secret is kept: keys create issues one, shown once with the key. */
  secrets?: WebhookSecretStore;
  out: (text: string) => void;
  json: boolean;
  now: number;
}

export interface CreateKeyOptions {
  scope?: string;
  label?: string;
  expires?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

const keyState = (key: ApiKey, now: number) => {
  if (key.revoked) return 'revoked';
  return isUsable(key, now) ? 'active' : 'expired';
};

const keyJson = (key: ApiKey, now: number) => ({
  key_id: key.keyId,
  label: key.label,
  scope: key.scope,
  created_at: iso(key.createdAt),
  expires_at: key.expiresAt === undefined ? null : iso(key.expiresAt),
  revoked: key.revoked,
  state: keyState(key, now),
});

export const createKey = async (ctx: KeyContext, options: CreateKeyOptions): Promise<number> => {
  if (!options.scope) throw new InvalidInputError('keys create needs --scope');
  const expiresAt = options.expires ? parseExpiry(options.expires, ctx.now) : undefined;
  const key = generateApiKey();
  const record = newApiKeyRecord(
    key,
    { scope: options.scope, label: options.label ?? '', expiresAt },
    ctx.now,
  );
  await ctx.keys.create(record);
  const secret = ctx.secrets && (await issueFirstSecret(ctx.secrets, record.keyId, ctx.now));
  ctx.out(
    ctx.json
      ? JSON.stringify({ key, ...keyJson(record, ctx.now), ...(secret ? { webhook_secret: secret } : {}) })
      : `${key}\n${secret ? `${secret}\n(key id ${record.keyId} and its webhook secret` : `(key id ${record.keyId}`}; shown once, save it now)`,
  );
  return 0;
};

export const listKeys = async (ctx: KeyContext): Promise<number> => {
  const rows = (await ctx.keys.list()).map((key) => keyJson(key, ctx.now));
  ctx.out(
    ctx.json
      ? JSON.stringify(rows)
      : formatTable(
          rows.map((row) => ({
            ...row,
            expires_at: row.expires_at ?? 'never',
            revoked: String(row.revoked),
          })),
          ['key_id', 'label', 'scope', 'created_at', 'expires_at', 'state'],
        ),
  );
  return 0;
};

export const revokeKey = async (ctx: KeyContext, keyId: string | undefined): Promise<number> => {
  if (!keyId) throw new InvalidInputError('keys revoke needs a key id (see keys list)');
  if (!(await ctx.keys.revoke(keyId))) throw new InvalidInputError(`no key with id ${keyId}`);
  ctx.out(ctx.json ? JSON.stringify({ key_id: keyId, revoked: true }) : `revoked ${keyId}`);
  return 0;
};
