// Owns an API key's item: the key record (its hash, never the key) to and from the table.
import type { ApiKey } from '../../domain/apiKey';
import { num, str } from './itemFields';
import { apiKeyKey, type Item, type ItemType } from './keys';

export const apiKeyToItem = (key: ApiKey): Item => ({
  ...apiKeyKey(key.keyHash),
  type: 'apikey' satisfies ItemType,
  keyId: key.keyId,
  keyHash: key.keyHash,
  scope: key.scope,
  label: key.label,
  createdAt: key.createdAt,
  ...(key.expiresAt === undefined ? {} : { expiresAt: key.expiresAt }),
  revoked: key.revoked,
});

export const apiKeyFromItem = (item: Item): ApiKey => ({
  keyId: str(item, 'keyId'),
  keyHash: str(item, 'keyHash'),
  scope: str(item, 'scope'),
  label: str(item, 'label'),
  createdAt: num(item, 'createdAt'),
  ...(typeof item.expiresAt === 'number' ? { expiresAt: item.expiresAt } : {}),
  revoked: item.revoked === true,
});
