// Owns enforcing the limits on start (shared/domain/keyLimits.ts) through the shared counters, so they hold across
// every API process at once: the key's starts per minute, its checks in flight, and its scope's checks in flight.
import type { Principal } from '../domain/apiKey';
import {
  TooManyChecksInFlightError,
  TooManyScopeChecksInFlightError,
  TooManyStartsError,
} from '../domain/errors';
import {
  firstSlotFreeAt,
  type InFlightHolder,
  isInFlight,
  type KeyLimits,
  RECHECK_MS,
  rateWindowOf,
  retryAfterSeconds,
} from '../domain/keyLimits';
import type { KeyUsageStore } from '../domain/ports';

export interface KeyLimitDeps {
  usage: KeyUsageStore;
  limits: KeyLimits;
}

/** Counts a start against the key's per-minute budget, or throws TooManyStartsError. */
export const countStart = async (deps: KeyLimitDeps, principal: Principal, now: number): Promise<void> => {
  const limit = deps.limits.startsPerMinute;
  if (limit === 0) return;
  const window = rateWindowOf(now);
  if (await deps.usage.countStart(principal.keyId, window.start, limit)) return;
  throw new TooManyStartsError(retryAfterSeconds(window.end, now));
};

/**
 * Takes a slot in one in-flight set, or answers when one frees. A full set is first cleared of checks that timed
 * out, and (at most every RECHECK_MS) of checks that completed or were never written, so slots come back without
 * any other process's help.
 */
const takeSlot = async (
  usage: KeyUsageStore,
  holder: InFlightHolder,
  max: number,
  checkId: string,
  now: number,
): Promise<{ retryAfter: number } | undefined> => {
  const entry = { checkId, startedAt: now };
  if (await usage.addInFlight(holder, entry, max)) return undefined;
  const { entries, checkedAt } = await usage.inFlight(holder);
  const readChecks = checkedAt === undefined || now - checkedAt >= RECHECK_MS || now < checkedAt;
  const progress = readChecks
    ? await usage.progressOf(entries.map((candidate) => candidate.checkId))
    : undefined;
  // Between reads only time can end a check; a reserved slot is given the benefit of the doubt.
  const still = entries.filter((candidate) =>
    progress
      ? isInFlight(candidate, progress.get(candidate.checkId), now)
      : isInFlight(candidate, { received: 0, total: 1 }, now),
  );
  if (still.length < entries.length || readChecks) {
    const stillIds = new Set(still.map((candidate) => candidate.checkId));
    const done = entries.filter((candidate) => !stillIds.has(candidate.checkId));
    await usage.removeInFlight(
      holder,
      done.map((candidate) => candidate.checkId),
      readChecks ? now : undefined,
    );
    if (done.length > 0 && (await usage.addInFlight(holder, entry, max))) return undefined;
  }
  return { retryAfter: retryAfterSeconds(firstSlotFreeAt(still, now), now) };
};

/**
 * Takes an in-flight slot for a new check in the key's set, then in its scope's, or throws
 * TooManyChecksInFlightError or TooManyScopeChecksInFlightError (giving back the key's slot).
 */
export const reserveInFlight = async (
  deps: KeyLimitDeps,
  principal: Principal,
  checkId: string,
  now: number,
): Promise<void> => {
  const { maxInFlight, maxInFlightPerScope = 0 } = deps.limits;
  if (maxInFlight > 0) {
    const refused = await takeSlot(deps.usage, { keyId: principal.keyId }, maxInFlight, checkId, now);
    if (refused) throw new TooManyChecksInFlightError(refused.retryAfter);
  }
  if (maxInFlightPerScope > 0) {
    const refused = await takeSlot(deps.usage, { scope: principal.scope }, maxInFlightPerScope, checkId, now);
    if (refused) {
      if (maxInFlight > 0) await deps.usage.removeInFlight({ keyId: principal.keyId }, [checkId]);
      throw new TooManyScopeChecksInFlightError(refused.retryAfter);
    }
  }
};

/** Gives back the slots taken for a check that was never created. */
export const releaseInFlight = async (
  deps: KeyLimitDeps,
  principal: Principal,
  checkId: string,
): Promise<void> => {
  const { maxInFlight, maxInFlightPerScope = 0 } = deps.limits;
  if (maxInFlight > 0) await deps.usage.removeInFlight({ keyId: principal.keyId }, [checkId]);
  if (maxInFlightPerScope > 0) await deps.usage.removeInFlight({ scope: principal.scope }, [checkId]);
};
