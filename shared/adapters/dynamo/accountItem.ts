// Owns an account's item: the registration to and from the table, with the health the scanner keeps on it.
import type { RegisteredAccount, TestAccount } from '../../domain/account';
import { str } from './itemFields';
import { accountKey, type Item, type ItemType, scopeAccountSortKey, scopeAccountsKey } from './keys';

export const accountToItem = (account: TestAccount): Item => ({
  ...accountKey(account.email),
  ...scopeAccountsKey(account.scope),
  ...scopeAccountSortKey(account.email),
  type: 'account' satisfies ItemType,
  email: account.email,
  provider: account.provider,
  scope: account.scope,
  active: account.active,
});

export const accountFromItem = (item: Item): RegisteredAccount => ({
  email: str(item, 'email'),
  provider: str(item, 'provider'),
  scope: str(item, 'scope'),
  active: item.active === true,
  ...(typeof item.restedAt === 'number' ? { rested: true } : {}),
  health: {
    failures: typeof item.failures === 'number' ? item.failures : 0,
    unhealthySince: typeof item.unhealthySince === 'number' ? item.unhealthySince : undefined,
    lastError: typeof item.lastError === 'string' ? item.lastError : undefined,
  },
});
