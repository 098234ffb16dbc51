// Owns the credentials of thousands of mailboxes on AWS: one sealed item per account in the table (credentialItem.ts,
// sealed under the deployment's KMS key), and the accounts the secret still holds itself until `accounts sync`.
// Between an upgrade's deploy and its `reseal`, an item sealed the old way opens with the secret's old itemKey.
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { normaliseAccountEmail } from '../../domain/address';
import type { Clock } from '../../domain/clock';
import type { Sealer } from '../../domain/sealer';
import { isConditionFailed } from '../dynamo/conditionalWrite';
import { credentialCountKey, credentialKey } from '../dynamo/keys';
import type { SecretAccountEntries, SecretDocument } from './accountEntries';
import type { AccountEntry } from './accountEntrySchema';
import {
  credentialFromItem,
  credentialToItem,
  isSealedItem,
  itemKeyBytes,
  legacyCredentialFromItem,
} from './credentialItem';
import { type CredentialStore, DocumentCredentialStore } from './credentialStore';

export interface ItemCredentialStoreOptions {
  clock: Clock;
  /** Seals and opens each item (KMS on AWS): the key is never in the secret, so no document can orphan an item. */
  sealer: Sealer;
  /** How long the secret's document (accounts not moved yet) is reused before it is read again. */
  secretTtlMs?: number;
  /** Tries of a compare-and-set on one item before it gives up (default 8). */
  attempts?: number;
}

/** A transaction cancelled because one of its conditions failed: the same answer as a refused conditional write. */
const isCancelledOnCondition = (error: unknown): boolean =>
  (error as { name?: string }).name === 'TransactionCanceledException' &&
  ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).some(
    (reason) => reason.Code === 'ConditionalCheckFailed',
  );

export class ItemCredentialStore implements CredentialStore {
  private cached: { at: number; document: SecretDocument } | undefined;
  /** The secret's old itemKey, once read: kept for the process (it never changes while the secret holds it). */
  private oldKey: Buffer | undefined;
  /** The accounts the secret still holds, as a one-account store over it (the move's other side). */
  readonly legacy: DocumentCredentialStore;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly secret: SecretAccountEntries,
    private readonly options: ItemCredentialStoreOptions,
  ) {
    this.legacy = new DocumentCredentialStore(secret);
  }

  /**
   * The item first, then the accounts still in the secret; a miss in both reads the item once more, because
   * `accounts sync` writes the item before it takes the account out of the secret, so an account moved between the
   * two reads is in the item by the second.
   */
  async entry(email: string): Promise<AccountEntry | undefined> {
    const item = await this.readItem(email);
    if (item) return item.entry;
    const document = await this.document();
    const wanted = normaliseAccountEmail(email);
    const legacy = document.accounts.find((account) => normaliseAccountEmail(account.email) === wanted);
    return legacy ?? (await this.readItem(email))?.entry;
  }

  async updateEntry(
    email: string,
    change: (entry: AccountEntry) => AccountEntry | undefined,
  ): Promise<boolean> {
    for (let attempt = 1; attempt <= (this.options.attempts ?? 8); attempt++) {
      const stored = await this.readItem(email);
      // Not moved yet: the secret's own compare-and-set. `accounts sync` re-copies an entry changed under it.
      if (!stored) return this.legacy.updateEntry(email, change);
      const next = change(stored.entry);
      if (next === undefined) return false;
      if (await this.writeItem(next, stored.version)) return true;
    }
    throw new Error(`the credential item of ${normaliseAccountEmail(email)} kept changing under its writes`);
  }

  /** Creates or replaces the account's item; a new one is counted in the same transaction. */
  async put(entry: AccountEntry): Promise<void> {
    for (let attempt = 1; attempt <= (this.options.attempts ?? 8); attempt++) {
      const stored = await this.readItem(entry.email);
      if (await this.writeItem(entry, stored?.version)) return;
    }
    throw new Error(
      `the credential item of ${normaliseAccountEmail(entry.email)} kept changing under its writes`,
    );
  }

  async remove(email: string): Promise<void> {
    const key = credentialKey(normaliseAccountEmail(email));
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: this.tableName, Key: key, ConditionExpression: 'attribute_exists(pk)' } },
            this.countBy(-1),
          ],
        }),
      );
    } catch (error) {
      if (!isCancelledOnCondition(error)) throw error;
    }
    await this.legacy.remove(email);
  }

  /** Items counted, plus accounts still in the secret (an account half-way through a move counts twice). */
  async count(): Promise<number> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: credentialCountKey() }),
    );
    const items = typeof Item?.accounts === 'number' ? Item.accounts : 0;
    return items + (await this.document()).accounts.length;
  }

  /** The item of one account, opened; undefined when it has none. */
  async readItem(email: string): Promise<{ entry: AccountEntry; version: number } | undefined> {
    const account = normaliseAccountEmail(email);
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: credentialKey(account), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    if (!isSealedItem(Item)) {
      const key = await this.oldItemKey();
      // Sealed before KMS and not re-sealed yet: opens while the secret still holds the key it was sealed with.
      // Without it (reseal has run, or the item is malformed) it fails as credentialFromItem says, naming reseal.
      if (key) return legacyCredentialFromItem(account, Item, key);
    }
    return credentialFromItem(account, Item, this.options.sealer);
  }

  /**
   * The old itemKey while the secret still holds one (the deploy-to-reseal window); read with the document and then
   * kept, so a process reads it once. Absent, it is asked again only as the document is (its TTL): reseal removes it.
   */
  private async oldItemKey(): Promise<Buffer | undefined> {
    if (this.oldKey) return this.oldKey;
    const { itemKey } = await this.document();
    if (itemKey !== undefined) this.oldKey = itemKeyBytes(itemKey);
    return this.oldKey;
  }

  /** Drops the remembered document, so the next read sees what `accounts sync` did to the secret. */
  forget(): void {
    this.cached = undefined;
  }

  /**
   * Writes the entry as version `read + 1` if the item is still at `read` (or, with none read, still absent, then
   * counted). False when another writer got there first.
   */
  private async writeItem(entry: AccountEntry, read: number | undefined): Promise<boolean> {
    const item = await credentialToItem(entry, this.options.sealer, (read ?? 0) + 1);
    try {
      if (read !== undefined) {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: item,
            ConditionExpression: 'version = :read',
            ExpressionAttributeValues: { ':read': read },
          }),
        );
      } else {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: this.tableName,
                  Item: item,
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
              this.countBy(1),
            ],
          }),
        );
      }
      return true;
    } catch (error) {
      if (isConditionFailed(error) || isCancelledOnCondition(error)) return false;
      throw error;
    }
  }

  private countBy(delta: number) {
    return {
      Update: {
        TableName: this.tableName,
        Key: credentialCountKey(),
        UpdateExpression: 'ADD accounts :delta',
        ExpressionAttributeValues: { ':delta': delta },
      },
    };
  }

  private async document(): Promise<SecretDocument> {
    const now = this.options.clock.now();
    if (!this.cached || now - this.cached.at > (this.options.secretTtlMs ?? 60_000)) {
      this.cached = { at: now, document: await this.secret.readDocument() };
    }
    return this.cached.document;
  }
}
