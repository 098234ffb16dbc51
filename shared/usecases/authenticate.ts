// Owns turning an Authorization header into a principal, or the spec's 401.
import { bearerKeyOf, hashApiKey, isUsable, type Principal } from '../domain/apiKey';
import type { Clock } from '../domain/clock';
import { InvalidApiKeyError } from '../domain/errors';
import type { ApiKeyStore } from '../domain/ports';

export const authenticate = async (
  deps: { keys: ApiKeyStore; clock: Clock },
  authorization: string | undefined,
): Promise<Principal> => {
  const key = bearerKeyOf(authorization);
  const stored = await deps.keys.findByHash(hashApiKey(key));
  if (!stored || !isUsable(stored, deps.clock.now())) throw new InvalidApiKeyError();
  return { keyId: stored.keyId, scope: stored.scope };
};
