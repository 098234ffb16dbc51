// Owns reading a check for a caller: within the key's read limit; unknown, expired and other scopes' checks are all
// the same 404.
import type { Principal } from '../domain/apiKey';
import { type Check, type CheckView, isExpired, viewOf } from '../domain/check';
import { isCheckId } from '../domain/checkId';
import type { Clock } from '../domain/clock';
import { CheckNotFoundError, TooManyReadsError } from '../domain/errors';
import type { CheckStore } from '../domain/ports';
import type { ReadLimiter } from '../domain/readLimits';

/**
 * A use case that shows the caller's check one way (the spec's view, the placement report): unknown, expired and
 * other scopes' checks are all the same 404, whichever way it is shown.
 */
export const showingCheck =
  <T>(show: (check: Check, now: number) => T) =>
  async (
    deps: { checks: CheckStore; clock: Clock; readLimiter?: ReadLimiter | undefined },
    principal: Principal,
    checkId: string,
  ): Promise<T> => {
    // Counted before anything else, so reads of malformed ids count too, and a refusal costs no store read.
    const retryAfter = deps.readLimiter?.take(principal.keyId, deps.clock.now());
    if (retryAfter !== undefined) throw new TooManyReadsError(retryAfter);
    if (!isCheckId(checkId)) throw new CheckNotFoundError();
    const check = await deps.checks.get(checkId);
    const now = deps.clock.now();
    if (!check || check.scope !== principal.scope || isExpired(check, now)) throw new CheckNotFoundError();
    return show(check, now);
  };

export const getCheck = showingCheck<CheckView>(viewOf);
