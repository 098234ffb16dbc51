// Owns the scanner's folder cursors (UIDVALIDITY and the last UID seen) in DynamoDB: one item per account holding
// every folder's, read and written in batches across the accounts a tick sweeps at once.
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { CursorStore, FolderCursor } from '../../scanner/scannerPorts';
import { BATCH_GET_KEYS, getAll } from './batchGet';
import { BATCH_WRITE_ITEMS, putRequest, writeAll } from './batchWrite';
import { Coalescer } from './coalescer';
import { accountCursorsKey, cursorKey, type Item, type ItemType } from './keys';

/**
 * Folders one account's item holds, each path at most MAX_PATH_BYTES: 200 of the longest stay near 220 KB, well
 * inside DynamoDB's 400 KB item. A folder past either cap keeps its cursor in the loop's memory only.
 */
export const MAX_CURSOR_FOLDERS = 200;
const MAX_PATH_BYTES = 1000;
/** IMAP's UIDVALIDITY is a 32-bit number: anything longer is not one. */
const MAX_UID_VALIDITY_CHARS = 20;
/**
 * How long the first read or write of a batch waits for others: a tick's sweeps ask within a few milliseconds of
 * each other, a read waits beside the account's login, and a write is the last step of a sweep.
 */
const BATCH_WINDOW_MS = 10;
/** Pages of the earlier layout read for one account: a folder beyond them is read as at first sight. */
const EARLIER_LAYOUT_PAGES = 5;
/** What every account held in the earlier layout (an item per folder) has, so one key tells whether to look there. */
const INBOX = 'INBOX';

const cursorOf = (value: unknown): FolderCursor | undefined => {
  if (!value || typeof value !== 'object') return undefined;
  const { uidValidity, lastUid } = value as Record<string, unknown>;
  return typeof uidValidity === 'string' && typeof lastUid === 'number'
    ? { uidValidity, lastUid }
    : undefined;
};

const storable = (path: string, cursor: FolderCursor): boolean =>
  path.length > 0 &&
  Buffer.byteLength(path) <= MAX_PATH_BYTES &&
  cursor.uidValidity.length <= MAX_UID_VALIDITY_CHARS;

/** The first MAX_CURSOR_FOLDERS storable cursors, in the caller's order. */
const capped = (cursors: Iterable<[string, FolderCursor]>): Map<string, FolderCursor> => {
  const kept = new Map<string, FolderCursor>();
  for (const [path, cursor] of cursors) {
    if (kept.size >= MAX_CURSOR_FOLDERS) break;
    if (storable(path, cursor)) kept.set(path, cursor);
  }
  return kept;
};

/** The item holds a list, not a map by path: a folder's name is the server's text, and never becomes a key here. */
const foldersOf = (item: Item): Map<string, FolderCursor> =>
  capped(
    (Array.isArray(item.folders) ? item.folders : []).flatMap((value: unknown) => {
      const cursor = cursorOf(value);
      const path = cursor && (value as { path?: unknown }).path;
      return cursor && typeof path === 'string' ? [[path, cursor] as [string, FolderCursor]] : [];
    }),
  );

export class DynamoCursorStore implements CursorStore {
  private readonly reads: Coalescer<undefined, Map<string, FolderCursor>>;
  private readonly writes: Coalescer<Item, undefined>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    windowMs = BATCH_WINDOW_MS,
  ) {
    this.reads = new Coalescer((emails) => this.readAccounts([...emails.keys()]), BATCH_GET_KEYS, windowMs);
    this.writes = new Coalescer(
      async (items) => {
        await writeAll(this.client, this.tableName, [...items.values()].map(putRequest));
        return new Map();
      },
      BATCH_WRITE_ITEMS,
      windowMs,
    );
  }

  async get(email: string, path: string): Promise<FolderCursor | undefined> {
    return (await this.all(email)).get(path);
  }

  /** Joins the batch read of this tick's accounts: one strongly consistent BatchGetItem per 100 of them. */
  async all(email: string): Promise<Map<string, FolderCursor>> {
    return new Map((await this.reads.add(email, undefined)) ?? []);
  }

  /** Read, then written whole: for tools and tests, never beside a sweep of the same account. */
  async put(email: string, path: string, cursor: FolderCursor): Promise<void> {
    const cursors = await this.all(email);
    cursors.set(path, cursor);
    await this.putAll(email, cursors);
  }

  /**
   * Replaces the account's item with these cursors (capped: see MAX_CURSOR_FOLDERS), in the batch write of this
   * tick's accounts: one BatchWriteItem per 25 of them. Resolves once DynamoDB has acknowledged this account's item.
   */
  async putAll(email: string, cursors: ReadonlyMap<string, FolderCursor>): Promise<void> {
    const item = {
      ...accountCursorsKey(email),
      type: 'cursor' satisfies ItemType,
      email,
      folders: [...capped(cursors)].map(([path, cursor]) => ({ path, ...cursor })),
    };
    await this.writes.add(email, item);
  }

  private async readAccounts(emails: string[]): Promise<Map<string, Map<string, FolderCursor>>> {
    const found = new Map<string, Map<string, FolderCursor>>();
    for (const item of await getAll(this.client, this.tableName, emails.map(accountCursorsKey)))
      if (typeof item.email === 'string') found.set(item.email, foldersOf(item));
    // An account without an item: new, or still in the earlier layout, where it has an INBOX cursor. One more batch
    // read tells which, so only an account moving from the earlier layout pays for a Query, once.
    const missing = emails.filter((email) => !found.has(email));
    if (missing.length === 0) return found;
    const earlier = await getAll(
      this.client,
      this.tableName,
      missing.map((email) => cursorKey(email, INBOX)),
    );
    await Promise.all(
      earlier.map(async ({ email }) => {
        if (typeof email === 'string') found.set(email, await this.readEarlierLayout(email));
      }),
    );
    return found;
  }

  /** The account's per-folder items of the earlier layout, up to the cap, in at most a few pages. */
  private async readEarlierLayout(email: string): Promise<Map<string, FolderCursor>> {
    const cursors = new Map<string, FolderCursor>();
    const partition = cursorKey(email, '');
    let startKey: Item | undefined;
    for (let page = 0; page < EARLIER_LAYOUT_PAGES; page++) {
      const { Items = [], LastEvaluatedKey } = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :folder)',
          ExpressionAttributeValues: { ':pk': partition.pk, ':folder': partition.sk },
          ConsistentRead: true,
          Limit: MAX_CURSOR_FOLDERS,
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
      );
      for (const item of Items) {
        const cursor = cursorOf(item);
        if (cursor && typeof item.path === 'string' && storable(item.path, cursor))
          cursors.set(item.path, cursor);
        if (cursors.size >= MAX_CURSOR_FOLDERS) return cursors;
      }
      startKey = LastEvaluatedKey;
      if (!startKey) break;
    }
    return cursors;
  }
}
