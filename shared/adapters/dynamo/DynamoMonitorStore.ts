// Owns monitors in DynamoDB (shared/monitors/monitorsPorts.ts): every monitor in one partition, its sealed message in parts of
// its own (an item holds at most 400 KB), and one item per run with a TTL, newest last.
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Monitor, MonitorRun, MonitorStore } from '../../monitors';
import { deleteRequest, putRequest, writeAll } from './batchWrite';
import { written } from './conditionalWrite';
import { type ItemType, MONITOR_PARTITION, monitorKey, monitorMessageKey, monitorRunPartition } from './keys';
import { monitorFromItem, monitorToItem, runFromItem, runToItem } from './monitorItem';

/** Characters of sealed text an item carries: well under 400 KB with its keys. */
const PART_CHARS = 300_000;
/** A 1 MB message sealed in base64 is under 1.4 M characters: 5 parts; more is refused as malformed. */
const MAX_PARTS = 8;

export class DynamoMonitorStore implements MonitorStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(monitor: Monitor, sealed: string): Promise<boolean> {
    const parts = Math.ceil(sealed.length / PART_CHARS);
    if (parts > MAX_PARTS) throw new Error('the sealed message is larger than a monitor keeps');
    const Item = { ...monitorToItem(monitor), parts };
    const created = await written(
      this.client.send(
        new PutCommand({ TableName: this.tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' }),
      ),
    );
    if (!created) return false;
    const { scope, name } = monitor;
    const writes = Array.from({ length: parts }, (_, part) =>
      putRequest({
        ...monitorMessageKey(scope, name, part),
        type: 'monitorMessage' satisfies ItemType,
        sealed: sealed.slice(part * PART_CHARS, (part + 1) * PART_CHARS),
      }),
    );
    try {
      await writeAll(this.client, this.tableName, writes);
    } catch (error) {
      // A monitor without its message would fail every run: take it back, so creating it again can work.
      await this.remove(scope, name).catch(() => undefined);
      throw error;
    }
    return true;
  }

  async get(scope: string, name: string): Promise<Monitor | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: monitorKey(scope, name), ConsistentRead: true }),
    );
    return Item ? monitorFromItem(Item) : undefined;
  }

  async sealedMessage(scope: string, name: string): Promise<string | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: monitorKey(scope, name), ConsistentRead: true }),
    );
    const parts = Number(Item?.parts);
    if (!Item || !Number.isInteger(parts) || parts < 1 || parts > MAX_PARTS) return undefined;
    const texts: string[] = [];
    for (let part = 0; part < parts; part++) {
      const { Item: piece } = await this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: monitorMessageKey(scope, name, part),
          ConsistentRead: true,
        }),
      );
      if (typeof piece?.sealed !== 'string') return undefined;
      texts.push(piece.sealed);
    }
    return texts.join('');
  }

  /**
   * Replaces the sealed message (`reseal`, under the new key) only if its first part still holds what was read; false
   * when the monitor changed or went in between. No transaction (the local store has none): a message of one part
   * (under 300,000 characters) changes in one conditional write; a longer one passes through a few milliseconds in
   * which a run reading it fails to open it, and the next run opens it.
   */
  async resealMessage(scope: string, name: string, before: string, after: string): Promise<boolean> {
    const oldParts = Math.ceil(before.length / PART_CHARS);
    const parts = Math.ceil(after.length / PART_CHARS);
    if (parts > MAX_PARTS || parts < oldParts)
      throw new Error('the resealed message does not fit the monitor');
    const part = (index: number) => ({
      ...monitorMessageKey(scope, name, index),
      type: 'monitorMessage' satisfies ItemType,
      sealed: after.slice(index * PART_CHARS, (index + 1) * PART_CHARS),
    });
    const later = Array.from({ length: parts - 1 }, (_, index) => putRequest(part(index + 1)));
    if (later.length > 0) await writeAll(this.client, this.tableName, later);
    const first = await written(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: part(0),
          ConditionExpression: 'sealed = :first',
          ExpressionAttributeValues: { ':first': before.slice(0, PART_CHARS) },
        }),
      ),
    );
    if (!first || parts === oldParts) return first;
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: monitorKey(scope, name),
          UpdateExpression: 'SET parts = :parts',
          ConditionExpression: 'parts = :old',
          ExpressionAttributeValues: { ':parts': parts, ':old': oldParts },
        }),
      ),
    );
  }

  async list(scope?: string): Promise<Monitor[]> {
    const monitors: Monitor[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const { Items = [], LastEvaluatedKey } = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: scope === undefined ? 'pk = :pk' : 'pk = :pk AND begins_with(sk, :scope)',
          ExpressionAttributeValues: {
            ':pk': MONITOR_PARTITION,
            ...(scope === undefined ? {} : { ':scope': `${scope}#` }),
          },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      monitors.push(...Items.map(monitorFromItem));
      start = LastEvaluatedKey;
    } while (start);
    return monitors;
  }

  async update(
    scope: string,
    name: string,
    change: Partial<Pick<Monitor, 'state' | 'nextRunAt'>>,
  ): Promise<boolean> {
    const fields = Object.entries(change).filter(([, value]) => value !== undefined);
    if (fields.length === 0) return (await this.get(scope, name)) !== undefined;
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: monitorKey(scope, name),
          ConditionExpression: 'attribute_exists(pk)',
          UpdateExpression: `SET ${fields.map(([field]) => `#${field} = :${field}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(fields.map(([field]) => [`#${field}`, field])),
          ExpressionAttributeValues: Object.fromEntries(fields.map(([field, value]) => [`:${field}`, value])),
        }),
      ),
    );
  }

  async remove(scope: string, name: string): Promise<boolean> {
    const removed = await written(
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: monitorKey(scope, name),
          ConditionExpression: 'attribute_exists(pk)',
        }),
      ),
    );
    const parts = Array.from({ length: MAX_PARTS }, (_, part) =>
      deleteRequest(monitorMessageKey(scope, name, part)),
    );
    await writeAll(this.client, this.tableName, parts);
    return removed;
  }

  async recordRun(run: MonitorRun): Promise<void> {
    await this.client.send(new PutCommand({ TableName: this.tableName, Item: runToItem(run) }));
  }

  async runs(scope: string, name: string, limit: number): Promise<MonitorRun[]> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': monitorRunPartition(scope, name) },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return Items.map(runFromItem);
  }
}
