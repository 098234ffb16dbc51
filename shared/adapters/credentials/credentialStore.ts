// Owns what the admin CLI, the scanner and the token write-back need of a credential store, one account at a time,
// and that view over a whole-document store (the local config file, or a secret holding every account).
import { normaliseAccountEmail } from '../../domain/address';
import type { AccountEntries } from './accountEntries';
import type { AccountEntry } from './accountEntrySchema';

export interface CredentialStore {
  entry(email: string): Promise<AccountEntry | undefined>;
  /**
   * A compare-and-set on one account's entry: `change` runs on the entry as stored (maybe more than once, after a
   * lost race, so it must be pure) and returns the new entry, or undefined to leave it alone. True when written.
   */
  updateEntry(email: string, change: (entry: AccountEntry) => AccountEntry | undefined): Promise<boolean>;
  /** Adds the account, or replaces its entry. */
  put(entry: AccountEntry): Promise<void>;
  remove(email: string): Promise<void>;
  /** How many accounts have credentials: what the scanner splits into shards. */
  count(): Promise<number>;
}

const sameAccount = (email: string) => {
  const wanted = normaliseAccountEmail(email);
  return (account: AccountEntry) => normaliseAccountEmail(account.email) === wanted;
};

/** The one-account view of a document store; every write replaces the whole document by its own rules. */
export class DocumentCredentialStore implements CredentialStore {
  constructor(readonly entries: AccountEntries) {}

  async entry(email: string): Promise<AccountEntry | undefined> {
    return (await this.entries.read()).find(sameAccount(email));
  }

  async updateEntry(
    email: string,
    change: (entry: AccountEntry) => AccountEntry | undefined,
  ): Promise<boolean> {
    const matches = sameAccount(email);
    // A cheap read first: a change that writes nothing costs no write (a secret would gain a version).
    const stored = (await this.entries.read()).find(matches);
    if (!stored || change(stored) === undefined) return false;
    let written = false;
    // update may run this again on a newer document after a lost race: only the last run's answer counts.
    await this.entries.update((accounts) => {
      written = false;
      return accounts.map((account) => {
        if (!matches(account)) return account;
        const next = change(account);
        if (next === undefined) return account;
        written = true;
        return next;
      });
    });
    return written;
  }

  async put(entry: AccountEntry): Promise<void> {
    const matches = sameAccount(entry.email);
    await this.entries.update((accounts) => [...accounts.filter((account) => !matches(account)), entry]);
  }

  async remove(email: string): Promise<void> {
    const matches = sameAccount(email);
    await this.entries.update((accounts) => accounts.filter((account) => !matches(account)));
  }

  async count(): Promise<number> {
    return (await this.entries.read()).length;
  }
}
