// Owns the non-secret registration of a test account: where it lives and who may use it.

import { normaliseAccountEmail } from './address';
import { validateScope } from './apiKey';
import { InvalidInputError } from './errors';

export interface TestAccount {
  email: string;
  provider: string;
  scope: string;
  active: boolean;
  /** Rested by the operator (`admin accounts rest`): new checks leave it out; calibrations still reach it. */
  rested?: boolean | undefined;
}

/** What the scanner has seen of an account lately; an unhealthy account is left out of new checks. */
export interface AccountHealth {
  /** Sweeps that failed in a row (login, connection or read). */
  failures: number;
  /** Set once `failures` reached the threshold; cleared by the next successful sweep. */
  unhealthySince?: number | undefined;
  lastError?: string | undefined;
}

export type RegisteredAccount = TestAccount & { health: AccountHealth };

/** Default number of failed sweeps in a row after which an account is taken out of new checks. */
export const DEFAULT_UNHEALTHY_AFTER = 3;

export const isHealthy = (health: AccountHealth): boolean => health.unhealthySince === undefined;

const PROVIDER = /^[a-z0-9][a-z0-9_-]{0,31}$/;

export const validateAccount = (account: TestAccount): TestAccount => {
  if (!PROVIDER.test(account.provider)) throw new InvalidInputError(`invalid provider "${account.provider}"`);
  return {
    email: normaliseAccountEmail(account.email),
    provider: account.provider,
    scope: validateScope(account.scope),
    active: account.active,
  };
};
