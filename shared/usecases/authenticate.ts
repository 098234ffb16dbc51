// Owns turning an Authorization header into a principal, or the spec's 401.

import { bearerKeyOf, hashApiKey, isUsable, keyMatchesHash, type Principal } from '../domain/apiKey';
import type { AuthCache } from '../domain/authCache';
import type { Clock } from '../domain/clock';
import { InvalidApiKeyError } from '../domain/errors';
import type { ApiKeyStore } from '../domain/ports';

export const authenticate = async (
  deps: { keys: ApiKeyStore; clock: Clock; authCache?: AuthCache | undefined },
  authorization: string | undefined,
): Promise<Principal> => {
  const key = bearerKeyOf(authorization);
  const keyHash = hashApiKey(key);
  const now = deps.clock.now();
  const load = () => deps.keys.findByHash(keyHash);
  const stored = deps.authCache ? await deps.authCache.lookup(keyHash, now, load) : await load();
  // The lookup was by hash; the constant-time comparison makes sure the record found is this key's.
  if (!stored || !keyMatchesHash(key, stored.keyHash) || !isUsable(stored, now))
    throw new InvalidApiKeyError();
  return { keyId: stored.keyId, scope: stored.scope };
};
