// Owns keeping a rotated OAuth2 refresh token in the credential store (config file, secret or per-account items), as
// a compare-and-set: it replaces only the token the refresh started from, so a loop never overwrites a newer one.

import type { AccountEntries } from '../credentials/accountEntries';
import type { AccountEntry } from '../credentials/accountEntrySchema';
import { type CredentialStore, DocumentCredentialStore } from '../credentials/credentialStore';
import type { OAuthTokensOptions } from './OAuthTokens';

export type RefreshTokenPersistence = Required<
  Pick<OAuthTokensOptions, 'persistRefreshToken' | 'storedRefreshToken'>
> & {
  /** True when the stored token was still `previous` and is now `next`; false when it was left alone. */
  persistRefreshToken(email: string, next: string, previous: string): Promise<boolean>;
};

const tokenOf = (account: AccountEntry | undefined): string | undefined =>
  account && 'oauth2' in account.auth ? account.auth.oauth2.refreshToken : undefined;

/** Both ends OAuthTokens needs from the credential store: `new OAuthTokens({ ...refreshTokenPersister(store), … })`. */
export const refreshTokenPersister = (source: CredentialStore | AccountEntries): RefreshTokenPersistence => {
  const store = 'updateEntry' in source ? source : new DocumentCredentialStore(source);
  return {
    // The comparison that counts runs inside updateEntry, on the entry as read for this very write; it may run again
    // on a newer entry after a lost race, and only the last run's answer counts.
    persistRefreshToken: (email, next, previous) =>
      store.updateEntry(email, (account) =>
        tokenOf(account) === previous && 'oauth2' in account.auth
          ? { ...account, auth: { ...account.auth, oauth2: { ...account.auth.oauth2, refreshToken: next } } }
          : undefined,
      ),
    storedRefreshToken: async (email) => tokenOf(await store.entry(email)),
  };
};
