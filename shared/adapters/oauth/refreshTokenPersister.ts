// Owns keeping a rotated OAuth2 refresh token in the credentials document (config file or secret), as a
// compare-and-set: it replaces only the token the refresh started from, so a loop never overwrites a newer one.

import type { AccountEntries } from '../credentials/accountEntries';
import type { AccountEntry } from '../credentials/accountEntrySchema';
import type { OAuthTokensOptions } from './OAuthTokens';

export type RefreshTokenPersistence = Required<
  Pick<OAuthTokensOptions, 'persistRefreshToken' | 'storedRefreshToken'>
> & {
  /** True when the stored token was still `previous` and is now `next`; false when it was left alone. */
  persistRefreshToken(email: string, next: string, previous: string): Promise<boolean>;
};

const storedToken = (accounts: readonly AccountEntry[], email: string): string | undefined => {
  const wanted = email.trim().toLowerCase();
  const account = accounts.find((candidate) => candidate.email.trim().toLowerCase() === wanted);
  return account && 'oauth2' in account.auth ? account.auth.oauth2.refreshToken : undefined;
};

/** Both ends OAuthTokens needs from the credentials document: `new OAuthTokens({ ...refreshTokenPersister(entries), … })`. */
export const refreshTokenPersister = (entries: AccountEntries): RefreshTokenPersistence => ({
  persistRefreshToken: async (email, next, previous) => {
    // A cheap read first: a lost race writes nothing (a secret would otherwise gain a version per refresh).
    if (storedToken(await entries.read(), email) !== previous) return false;
    let replaced = false;
    // The comparison that counts runs inside update, on the document as read for this very write; update may run it
    // again on a newer document after losing a race, so only the last run's answer counts.
    await entries.update((accounts) => {
      replaced = false;
      return accounts.map((account) => {
        if (storedToken([account], email) !== previous || !('oauth2' in account.auth)) return account;
        replaced = true;
        return {
          ...account,
          auth: { ...account.auth, oauth2: { ...account.auth.oauth2, refreshToken: next } },
        };
      });
    });
    return replaced;
  },
  storedRefreshToken: async (email) => storedToken(await entries.read(), email),
});
