// Owns the scanner's per-account, per-folder cursors (UIDVALIDITY and the last UID seen) in DynamoDB.
import { type DynamoDBDocumentClient, GetCommand, PutCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import type { CursorStore, FolderCursor } from '../../scanner/ports';
import { putRequest, writeAll } from './batchWrite';
import { cursorKey, type ItemType } from './keys';

const cursorOf = (item: Record<string, unknown>): FolderCursor | undefined =>
  typeof item.uidValidity === 'string' && typeof item.lastUid === 'number'
    ? { uidValidity: item.uidValidity, lastUid: item.lastUid }
    : undefined;

export class DynamoCursorStore implements CursorStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(email: string, path: string): Promise<FolderCursor | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: cursorKey(email, path), ConsistentRead: true }),
    );
    return Item ? cursorOf(Item) : undefined;
  }

  async all(email: string): Promise<Map<string, FolderCursor>> {
    // One strongly consistent Query over the account's partition instead of a GetItem per folder: a loop's first
    // sweep of a 6-folder account reads 1 unit where it read 6.
    const cursors = new Map<string, FolderCursor>();
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': cursorKey(email, '').pk },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        const cursor = cursorOf(item);
        if (cursor && typeof item.path === 'string') cursors.set(item.path, cursor);
      }
    }
    return cursors;
  }

  async put(email: string, path: string, cursor: FolderCursor): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: this.itemOf(email, path, cursor) }),
    );
  }

  /**
   * One BatchWriteItem per 25 folders instead of a PutItem each: a loop's first sweep of a 5-folder account
   * places every cursor in one request. Items are independent; each one is written whole or not at all.
   */
  async putAll(email: string, cursors: ReadonlyMap<string, FolderCursor>): Promise<void> {
    const items = [...cursors].map(([path, cursor]) => this.itemOf(email, path, cursor));
    if (items.length === 1 && items[0]) {
      await this.client.send(new PutCommand({ TableName: this.tableName, Item: items[0] }));
      return;
    }
    await writeAll(this.client, this.tableName, items.map(putRequest));
  }

  private itemOf(email: string, path: string, cursor: FolderCursor) {
    return { ...cursorKey(email, path), type: 'cursor' satisfies ItemType, email, path, ...cursor };
  }
}
