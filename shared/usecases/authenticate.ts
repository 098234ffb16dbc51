// Owns turning an Authorization header into a principal, or the spec's 401: from memory when the auth cache knows
// the key (or knows it for no key), else from the store.

import {
  type ApiKey,
  bearerKeyOf,
  hashApiKey,
  isUsable,
  keyMatchesHash,
  type Principal,
} from '../domain/apiKey';
import type { AuthCache } from '../domain/authCache';
import type { Clock } from '../domain/clock';
import { InvalidApiKeyError } from '../domain/errors';
import type { ApiKeyStore } from '../domain/ports';

export interface AuthDeps {
  keys: ApiKeyStore;
  clock: Clock;
  authCache?: AuthCache | undefined;
}

const principalOf = (key: string, stored: ApiKey | undefined, now: number): Principal => {
  // The lookup was by hash; the constant-time comparison makes sure the record found is this key's.
  if (!stored || !keyMatchesHash(key, stored.keyHash) || !isUsable(stored, now))
    throw new InvalidApiKeyError();
  return { keyId: stored.keyId, scope: stored.scope };
};

/**
 * What memory alone says of an Authorization header, with no store read: the principal, the 401 (thrown) of a
 * malformed header or of a key remembered as unknown, revoked or expired, or undefined when only the store can tell.
 */
export const authenticateFromMemory = (
  deps: Pick<AuthDeps, 'clock' | 'authCache'>,
  authorization: string | undefined,
): Principal | undefined => {
  const key = bearerKeyOf(authorization);
  if (!deps.authCache) return undefined;
  const now = deps.clock.now();
  const remembered = deps.authCache.remembered(hashApiKey(key), now);
  return remembered === undefined ? undefined : principalOf(key, remembered ?? undefined, now);
};

export const authenticate = async (deps: AuthDeps, authorization: string | undefined): Promise<Principal> => {
  const key = bearerKeyOf(authorization);
  const keyHash = hashApiKey(key);
  const now = deps.clock.now();
  const load = () => deps.keys.findByHash(keyHash);
  // Past the cache's budget of reads, unknown keys are judged against the list of every key: never a read each.
  const listAll = () => deps.keys.list();
  const stored = deps.authCache ? await deps.authCache.lookup(keyHash, now, load, listAll) : await load();
  return principalOf(key, stored, now);
};
