// Owns the API's side of a check in DynamoDB: creating it (with its shard entries) and reading it.
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Check } from '../../domain/check';
import type { CheckStore } from '../../domain/ports';
import type { ShardLayoutStore } from '../../domain/shardLayout';
import { putRequest, writeAll } from './batchWrite';
import { checkFromItem, checkToItem } from './checkItem';
import { putOnce } from './conditionalWrite';
import { checkKey, SHARD_ENTRIES } from './keys';
import { shardEntryItems, shardEntrySortKeys } from './shardEntries';

export class DynamoCheckStore implements CheckStore {
  /** `layout`: the scanner's shard layout, which starting a check files it by. */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly layout: Pick<ShardLayoutStore, 'read'>,
  ) {}

  async create(check: Check): Promise<void> {
    // Read after the check's start time was stamped (see LAYOUT_SETTLE_MS). Under one shard there is nothing more.
    const entries = shardEntryItems(check, (await this.layout.read())?.count ?? 1);
    const item = {
      ...checkToItem(check),
      ...(entries.length > 0 ? { [SHARD_ENTRIES]: shardEntrySortKeys(entries) } : {}),
    };
    await putOnce(this.client, this.tableName, item, `check ${check.checkId}`);
    // After the check, never before: an entry without its check would send a shard sweeping for nothing. If this
    // fails the start fails, and the check, never handed out, expires unused.
    await writeAll(this.client, this.tableName, entries.map(putRequest));
  }

  async get(checkId: string): Promise<Check | undefined> {
    // Strongly consistent so that a poll right after the scanner's write sees it.
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: checkKey(checkId), ConsistentRead: true }),
    );
    return Item ? checkFromItem(Item) : undefined;
  }
}
