// Owns the per-key (and per-scope in-flight) limit counters in DynamoDB: every change is one conditional write, so concurrent API processes
// can never together pass a limit.
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CheckProgress, InFlightEntry, InFlightHolder } from '../../domain/keyLimits';
import { RETENTION_MS } from '../../domain/limits';
import type { KeyUsageStore } from '../../domain/ports';
import { written } from './conditionalWrite';
import { checkKey, type ItemType, inFlightKey, startWindowKey } from './keys';

const MINUTE_MS = 60_000;
/** Map entries removed per UpdateItem, and check reads in flight at once. */
const REMOVE_CHUNK = 100;
const PARALLEL_READS = 25;
const toEpochSeconds = (ms: number) => Math.ceil(ms / 1000);

export class DynamoKeyUsage implements KeyUsageStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async countStart(keyId: string, windowStart: number, limit: number): Promise<boolean> {
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: startWindowKey(keyId, windowStart),
          UpdateExpression: 'SET #type = :type, purgeAt = :purgeAt ADD starts :one',
          ConditionExpression: 'attribute_not_exists(starts) OR starts < :limit',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: {
            ':type': 'starts' satisfies ItemType,
            ':purgeAt': toEpochSeconds(windowStart + 2 * MINUTE_MS),
            ':one': 1,
            ':limit': limit,
          },
        }),
      ),
    );
  }

  async addInFlight(holder: InFlightHolder, entry: InFlightEntry, max: number): Promise<boolean> {
    // The set's item may not exist yet, and a map entry cannot be set inside a missing map: add to an existing
    // set, else create the set holding just this entry, else (someone created it meanwhile) add once more.
    if (await this.addToExisting(holder, entry, max)) return true;
    const created = await written(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...inFlightKey(holder),
            type: 'inflight' satisfies ItemType,
            checks: { [entry.checkId]: entry.startedAt },
            purgeAt: toEpochSeconds(entry.startedAt + RETENTION_MS),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    return created || this.addToExisting(holder, entry, max);
  }

  private async addToExisting(holder: InFlightHolder, entry: InFlightEntry, max: number): Promise<boolean> {
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: inFlightKey(holder),
          // An idle key's set outlives its last check by the retention time, then TTL removes it.
          UpdateExpression: 'SET checks.#checkId = :startedAt, purgeAt = :purgeAt',
          ConditionExpression: 'attribute_exists(checks) AND size(checks) < :max',
          ExpressionAttributeNames: { '#checkId': entry.checkId },
          ExpressionAttributeValues: {
            ':startedAt': entry.startedAt,
            ':purgeAt': toEpochSeconds(entry.startedAt + RETENTION_MS),
            ':max': max,
          },
        }),
      ),
    );
  }

  async inFlight(
    holder: InFlightHolder,
  ): Promise<{ entries: InFlightEntry[]; checkedAt: number | undefined }> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: inFlightKey(holder), ConsistentRead: true }),
    );
    const checks = (Item?.checks ?? {}) as Record<string, unknown>;
    const entries = Object.entries(checks)
      .filter((pair): pair is [string, number] => typeof pair[1] === 'number')
      .map(([checkId, startedAt]) => ({ checkId, startedAt }));
    return { entries, checkedAt: typeof Item?.checkedAt === 'number' ? Item.checkedAt : undefined };
  }

  async removeInFlight(
    holder: InFlightHolder,
    checkIds: readonly string[],
    checkedAt?: number,
  ): Promise<void> {
    // DynamoDB allows a few hundred paths per expression; chunks keep every update well inside that.
    const chunks: string[][] = [];
    for (let from = 0; from < checkIds.length; from += REMOVE_CHUNK) {
      chunks.push(checkIds.slice(from, from + REMOVE_CHUNK));
    }
    if (chunks.length === 0 && checkedAt !== undefined) chunks.push([]);
    for (const [index, chunk] of chunks.entries()) {
      const mark = index === 0 && checkedAt !== undefined;
      const remove = chunk.map((_, at) => `checks.#c${at}`).join(', ');
      // A set already gone (TTL, or another process emptied it) has nothing left to remove.
      await written(
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: inFlightKey(holder),
            UpdateExpression: [mark ? 'SET checkedAt = :checkedAt' : '', remove ? `REMOVE ${remove}` : '']
              .filter(Boolean)
              .join(' '),
            ConditionExpression: 'attribute_exists(checks)',
            ...(chunk.length > 0
              ? { ExpressionAttributeNames: Object.fromEntries(chunk.map((id, at) => [`#c${at}`, id])) }
              : {}),
            ...(mark ? { ExpressionAttributeValues: { ':checkedAt': checkedAt } } : {}),
          }),
        ),
      );
    }
  }

  async progressOf(checkIds: readonly string[]): Promise<Map<string, CheckProgress>> {
    // Plain GetItems, a bounded number at a time: the API functions are allowed no batch calls (see
    // infra/constructs/ServiceFunction.ts). This runs only when a key is at its cap.
    const progress = new Map<string, CheckProgress>();
    for (let from = 0; from < checkIds.length; from += PARALLEL_READS) {
      const items = await Promise.all(
        checkIds.slice(from, from + PARALLEL_READS).map(async (checkId) => {
          const { Item } = await this.client.send(
            new GetCommand({
              TableName: this.tableName,
              Key: checkKey(checkId),
              ProjectionExpression: 'checkId, received, emails',
            }),
          );
          return Item;
        }),
      );
      for (const item of items) {
        if (!item) continue;
        const total = Array.isArray(item.emails) ? item.emails.length : 0;
        progress.set(String(item.checkId), { received: Number(item.received ?? 0), total });
      }
    }
    return progress;
  }
}
