// Owns refusing from memory alone the requests sure to be refused, before any store read or handler runs, so a
// flood of them costs the least a request can: made-up keys and a key reading past its bucket.
import type { Principal } from '../domain/apiKey';
import type { AuthCache } from '../domain/authCache';
import type { Clock } from '../domain/clock';
import { TooManyReadsError } from '../domain/errors';
import type { ReadLimiter } from '../domain/readLimits';
import { authenticateFromMemory } from './authenticate';

export interface ScreenDeps {
  clock: Clock;
  authCache?: AuthCache | undefined;
  readLimiter?: ReadLimiter | undefined;
}

/**
 * Throws the refusal a request is sure to get, as memory alone knows it: the 401 of a malformed or remembered
 * unknown key and, for a read (get and the report), the 429 of a key whose bucket is empty. Otherwise answers the
 * principal when memory knows the key, else undefined; the request then goes on to authentication and its use case,
 * which stay the ones that decide and count, so a request screened through is answered as it always was.
 */
export const screenRequest = (
  deps: ScreenDeps,
  request: { authorization: string | undefined; reads: boolean },
): Principal | undefined => {
  const principal = authenticateFromMemory(deps, request.authorization);
  if (principal && request.reads) {
    const retryAfter = deps.readLimiter?.refusal(principal.keyId, deps.clock.now());
    if (retryAfter !== undefined) throw new TooManyReadsError(retryAfter);
  }
  return principal;
};
