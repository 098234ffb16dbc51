// Owns enforcing the per-key limits on start (shared/domain/keyLimits.ts) through the shared counters, so they hold
// across every API process at once.
import type { Principal } from '../domain/apiKey';
import { TooManyChecksInFlightError, TooManyStartsError } from '../domain/errors';
import {
  firstSlotFreeAt,
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
 * Takes an in-flight slot for a new check, or throws TooManyChecksInFlightError. A full set is first cleared of
 * checks that timed out, and (at most every RECHECK_MS) of checks that completed or were never written, so slots
 * come back without any other process's help.
 */
export const reserveInFlight = async (
  deps: KeyLimitDeps,
  principal: Principal,
  checkId: string,
  now: number,
): Promise<void> => {
  const max = deps.limits.maxInFlight;
  if (max === 0) return;
  const entry = { checkId, startedAt: now };
  if (await deps.usage.addInFlight(principal.keyId, entry, max)) return;
  const { entries, checkedAt } = await deps.usage.inFlight(principal.keyId);
  const readChecks = checkedAt === undefined || now - checkedAt >= RECHECK_MS || now < checkedAt;
  const progress = readChecks
    ? await deps.usage.progressOf(entries.map((candidate) => candidate.checkId))
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
    await deps.usage.removeInFlight(
      principal.keyId,
      done.map((candidate) => candidate.checkId),
      readChecks ? now : undefined,
    );
    if (done.length > 0 && (await deps.usage.addInFlight(principal.keyId, entry, max))) return;
  }
  throw new TooManyChecksInFlightError(retryAfterSeconds(firstSlotFreeAt(still, now), now));
};

/** Gives back a slot taken for a check that was never created. */
export const releaseInFlight = async (
  deps: KeyLimitDeps,
  principal: Principal,
  checkId: string,
): Promise<void> => {
  if (deps.limits.maxInFlight === 0) return;
  await deps.usage.removeInFlight(principal.keyId, [checkId]);
};
