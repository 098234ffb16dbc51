// Owns the scanner's per-account, per-folder cursors (UIDVALIDITY and the last UID seen) in DynamoDB.
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CursorStore, FolderCursor } from '../../scanner/ports';
import { cursorKey, type ItemType } from './keys';

export class DynamoCursorStore implements CursorStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(email: string, path: string): Promise<FolderCursor | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: cursorKey(email, path), ConsistentRead: true }),
    );
    if (!Item || typeof Item.uidValidity !== 'string' || typeof Item.lastUid !== 'number') return undefined;
    return { uidValidity: Item.uidValidity, lastUid: Item.lastUid };
  }

  async put(email: string, path: string, cursor: FolderCursor): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...cursorKey(email, path), type: 'cursor' satisfies ItemType, email, path, ...cursor },
      }),
    );
  }
}
