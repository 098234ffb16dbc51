// Owns standing in for DynamoDB's TTL under `npm start`: dynalite has none, so without this every check ever started
// (and every key's start counters) stayed in the local table, and the table, its index and leveldb's files grew for
// as long as the service ran. Expiry itself never depends on deletion (shared/domain/check.ts isExpired): this only
// keeps the local store the size DynamoDB's TTL keeps the real one.

import { DeleteCommand, type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { written } from '../adapters/dynamo/conditionalWrite';
import { TABLE_SCHEMA } from '../adapters/dynamo/table';
import type { Clock } from '../domain/clock';
import { every, type Timer } from '../domain/timer';
import type { Logger } from '../log';

/** As often as the runner's schedule: DynamoDB's own TTL is far less punctual (hours), so this is generous. */
const PURGE_EVERY_MS = 60_000;

/**
 * Deletes every item whose TTL attribute (epoch seconds) is before `now`, as DynamoDB's TTL would; returns how
 * many. Each delete is conditional on the item still being past it, so one renewed meanwhile (a key's in-flight
 * set, refreshed by a new start) stays.
 */
export const purgeExpired = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  now: number,
): Promise<number> => {
  const { partitionKey, sortKey, ttlAttribute } = TABLE_SCHEMA;
  const condition = {
    ExpressionAttributeNames: { '#ttl': ttlAttribute },
    ExpressionAttributeValues: { ':now': Math.floor(now / 1000) },
  };
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      FilterExpression: '#ttl < :now',
      ProjectionExpression: '#pk, #sk',
      ...condition,
      ExpressionAttributeNames: {
        ...condition.ExpressionAttributeNames,
        '#pk': partitionKey,
        '#sk': sortKey,
      },
    },
  );
  let deleted = 0;
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const key = { [partitionKey]: item[partitionKey], [sortKey]: item[sortKey] };
      const gone = await written(
        client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: key,
            ConditionExpression: '#ttl < :now',
            ...condition,
          }),
        ),
      );
      if (gone) deleted++;
    }
  }
  return deleted;
};

/** Runs purgeExpired every PURGE_EVERY_MS while the local service runs. */
export class LocalExpiry {
  private timer: Timer | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly deps: { client: DynamoDBDocumentClient; tableName: string; clock: Clock; log: Logger },
    private readonly everyMs = PURGE_EVERY_MS,
  ) {}

  start(): void {
    this.timer = every(this.everyMs, () => void this.purge());
  }

  /** One purge now (none while one is running); a failure is logged and the next one tries again. */
  async purge(): Promise<void> {
    this.running ??= purgeExpired(this.deps.client, this.deps.tableName, this.deps.clock.now())
      .then((deleted) => this.deps.log.debug('expired items deleted', { deleted }))
      .catch((error: unknown) => this.deps.log.warn('could not delete expired items', { error }))
      .finally(() => {
        this.running = undefined;
      });
    await this.running;
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    await this.running;
  }
}
