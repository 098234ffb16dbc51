// Owns starting a check: pick the scope's active accounts, create the check once, hand out tagged addresses.

import { seedMarksOf } from '../calibration/domain';
import { tagAddress } from '../domain/address';
import type { Principal } from '../domain/apiKey';
import { type CheckCallback, newCheck } from '../domain/check';
import { newCheckId } from '../domain/checkId';
import type { Clock } from '../domain/clock';
import { ConflictError, NoAccountsError } from '../domain/errors';
import type { AccountRegistry, CheckStore, ScanTrigger, SeedHistoryStore } from '../domain/ports';
import { countStart, type KeyLimitDeps, releaseInFlight, reserveInFlight } from './enforceKeyLimits';

export interface StartCheckDeps {
  accounts: AccountRegistry;
  checks: CheckStore;
  clock: Clock;
  newId?: () => string;
  trigger?: ScanTrigger | undefined;
  /** Told about every started check, e.g. to count them. */
  onStarted?: ((check: StartedCheck) => void) | undefined;
  /** A calibration's control check: it also reaches rested seeds, so their record goes on. */
  control?: boolean | undefined;
  /** The per-key limits; without them a key may start any number of checks. */
  keyLimits?: KeyLimitDeps | undefined;
  /** The seeds' calibration record: its marks as they stand now are kept with the check; absent: none kept. */
  seeds?: Pick<SeedHistoryStore, 'latestRun'> | undefined;
}

/** What the caller asked for beyond the spec's request (an addition): a webhook when the check ends. */
export interface StartOptions {
  callbackUrl?: string | undefined;
  /** The API's base URL as the caller reached it, for the webhook's report_url. */
  apiBaseUrl?: string | undefined;
  /** The monitor whose run this is: kept with the check so its archived report is listed under it. */
  monitor?: string | undefined;
}

export interface StartedCheck {
  check_id: string;
  accounts: string[];
}

// A collision of 100 random bits is not expected in practice; retrying keeps a broken generator from
// silently overwriting someone else's check instead of failing loudly.
const ID_ATTEMPTS = 3;

const callbackOf = (
  options: StartOptions,
  principal: Principal,
  checkId: string,
): CheckCallback | undefined =>
  options.callbackUrl === undefined
    ? undefined
    : {
        callbackUrl: options.callbackUrl,
        keyId: principal.keyId,
        reportUrl: `${options.apiBaseUrl ?? ''}/api/spam-check/${checkId}/report`,
      };

export const startCheck = async (
  deps: StartCheckDeps,
  principal: Principal,
  options: StartOptions = {},
): Promise<StartedCheck> => {
  const limits = deps.keyLimits;
  if (limits) await countStart(limits, principal, deps.clock.now());
  const inScope = await deps.accounts.activeInScope(principal.scope);
  const active = deps.control ? inScope : inScope.filter((account) => account.rested !== true);
  if (active.length === 0) throw new NoAccountsError();
  const emails = active.map((account) => account.email).sort();
  const providers = Object.fromEntries(active.map((account) => [account.email, account.provider]));
  // A control check needs no marks: it is what makes them.
  const run = deps.seeds && !deps.control ? await deps.seeds.latestRun(principal.scope) : undefined;
  const newId = deps.newId ?? newCheckId;
  for (let attempt = 1; ; attempt++) {
    const checkId = newId();
    const callback = callbackOf(options, principal, checkId);
    const now = deps.clock.now();
    const check = newCheck(checkId, principal.scope, emails, now, providers, callback);
    if (deps.seeds && !deps.control) check.seedMarks = seedMarksOf(run, emails, now);
    if (options.monitor !== undefined) check.monitor = options.monitor;
    if (limits) await reserveInFlight(limits, principal, check.checkId, check.createdAt);
    try {
      await deps.checks.create(check);
    } catch (error) {
      // A slot whose check was never written would otherwise count until its grace runs out.
      if (limits) await releaseInFlight(limits, principal, check.checkId).catch(() => undefined);
      if (!(error instanceof ConflictError) || attempt >= ID_ATTEMPTS) throw error;
      continue;
    }
    await deps.trigger?.kick();
    const started = {
      check_id: check.checkId,
      accounts: emails.map((email) => tagAddress(email, check.checkId)),
    };
    deps.onStarted?.(started);
    return started;
  }
};
