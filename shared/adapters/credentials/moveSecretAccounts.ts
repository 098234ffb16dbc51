// Owns moving the accounts a credentials secret holds itself into their own items, while the scanner keeps reading:
// each is written to its item first and taken out of the secret only if the secret still holds what was copied.
import { normaliseAccountEmail } from '../../domain/address';
import type { AccountEntry } from './accountEntrySchema';
import type { ItemCredentialStore } from './ItemCredentialStore';

/** Rounds before the move gives up on entries that keep changing in the secret under it. */
const MOVE_ROUNDS = 5;

const same = (a: AccountEntry, b: AccountEntry) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Readers look in the item first and the secret second (ItemCredentialStore.entry), so an account is found at every
 * moment: before the copy in the secret, after it in both, after the removal in the item. A token rotated into the
 * secret between the copy and the removal (a writer that looked before the item existed) keeps the secret's entry
 * from being removed; the next round copies it over the item, if the item still holds the first copy.
 */
export const moveSecretAccounts = async (store: ItemCredentialStore): Promise<{ moved: number }> => {
  const copies = new Map<string, AccountEntry>();
  let moved = 0;
  for (let round = 1; round <= MOVE_ROUNDS; round++) {
    store.forget();
    const left = await store.legacy.entries.read();
    if (left.length === 0) return { moved };
    for (const entry of left) {
      const email = normaliseAccountEmail(entry.email);
      const copied = copies.get(email);
      if (copied === undefined) {
        // An item written since (by `accounts add`, or an earlier interrupted move) is newer than the secret.
        if (!(await store.readItem(email))) await store.put(entry);
      } else if (!same(copied, entry)) {
        await store.updateEntry(email, (current) => (same(current, copied) ? entry : undefined));
      }
      copies.set(email, entry);
    }
    await store.legacy.entries.update((accounts) =>
      accounts.filter((account) => {
        const copied = copies.get(normaliseAccountEmail(account.email));
        return copied === undefined || !same(copied, account);
      }),
    );
    moved = copies.size - (await store.legacy.entries.read()).length;
  }
  const stuck = (await store.legacy.entries.read()).length;
  if (stuck > 0) throw new Error(`${stuck} account(s) kept changing in the secret; run accounts sync again`);
  return { moved };
};
