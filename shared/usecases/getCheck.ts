// Owns reading a check for a caller: unknown, expired and other scopes' checks are all the same 404.
import type { Principal } from '../domain/apiKey';
import { type CheckView, isExpired, viewOf } from '../domain/check';
import { isCheckId } from '../domain/checkId';
import type { Clock } from '../domain/clock';
import { CheckNotFoundError } from '../domain/errors';
import type { CheckStore } from '../domain/ports';

export const getCheck = async (
  deps: { checks: CheckStore; clock: Clock },
  principal: Principal,
  checkId: string,
): Promise<CheckView> => {
  if (!isCheckId(checkId)) throw new CheckNotFoundError();
  const check = await deps.checks.get(checkId);
  const now = deps.clock.now();
  if (!check || check.scope !== principal.scope || isExpired(check, now)) throw new CheckNotFoundError();
  return viewOf(check, now);
};
