// Owns reading a check for a caller: unknown, expired and other scopes' checks are all the same 404.
import type { Principal } from '../domain/apiKey';
import { type Check, type CheckView, isExpired, viewOf } from '../domain/check';
import { isCheckId } from '../domain/checkId';
import type { Clock } from '../domain/clock';
import { CheckNotFoundError } from '../domain/errors';
import type { CheckStore } from '../domain/ports';

/**
 * A use case that shows the caller's check one way (the spec's view, the placement report): unknown, expired and
 * other scopes' checks are all the same 404, whichever way it is shown.
 */
export const showingCheck =
  <T>(show: (check: Check, now: number) => T) =>
  async (deps: { checks: CheckStore; clock: Clock }, principal: Principal, checkId: string): Promise<T> => {
    if (!isCheckId(checkId)) throw new CheckNotFoundError();
    const check = await deps.checks.get(checkId);
    const now = deps.clock.now();
    if (!check || check.scope !== principal.scope || isExpired(check, now)) throw new CheckNotFoundError();
    return show(check, now);
  };

export const getCheck = showingCheck<CheckView>(viewOf);
