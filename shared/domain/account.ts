// Owns the non-secret registration of a test account: where it lives and who may use it.

import { normaliseAccountEmail } from './address';
import { validateScope } from './apiKey';
import { InvalidInputError } from './errors';

export interface TestAccount {
  email: string;
  provider: string;
  scope: string;
  active: boolean;
}

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
