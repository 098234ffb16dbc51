// Owns reading and creating checks in DynamoDB.
import { type DynamoDBDocumentClient, GetCommand, paginateQuery, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DetectedCategory } from '../../domain/categories';
import { activeCutoff, type Check, isActive } from '../../domain/check';
import { RETENTION_MS } from '../../domain/limits';
import type { CheckStore, PlacementDetails, RecordOutcome } from '../../domain/ports';
import type {
  ActiveChecks,
  PendingAccounts,
  ResultEntry,
  ResultStore,
  SettledCheck,
} from '../../scanner/ports';
import { isConditionFailed, putOnce, written } from './conditionalWrite';
import {
  CHECKS_BY_TIME,
  checkFromItem,
  checkKey,
  checkTimeSortKey,
  checkToItem,
  pendingEmailsOf,
  storedResultOf,
} from './keys';
import { TABLE_SCHEMA } from './table';

export class DynamoCheckStore implements CheckStore, ActiveChecks, ResultStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(check: Check): Promise<void> {
    await putOnce(this.client, this.tableName, checkToItem(check), `check ${check.checkId}`);
  }

  async get(checkId: string): Promise<Check | undefined> {
    // Strongly consistent so that a poll right after the scanner's write sees it.
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: checkKey(checkId), ConsistentRead: true }),
    );
    return Item ? checkFromItem(Item) : undefined;
  }

  async recordResult(
    checkId: string,
    email: string,
    category: DetectedCategory,
    now: number,
    details: PlacementDetails = {},
  ): Promise<RecordOutcome> {
    try {
      // One conditional UpdateItem: the result (category, details) and the counter move together or not at all, so
      // rescans, duplicate deliveries and racing scanners can never count an account twice. The result's map is
      // written whole: while pending it holds only its category, so nothing else is lost.
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: checkKey(checkId),
          UpdateExpression: 'SET results.#email = :result ADD received :one',
          ConditionExpression: 'results.#email.category = :pending AND createdAt >= :cutoff',
          ExpressionAttributeNames: { '#email': email },
          ExpressionAttributeValues: {
            ':result': storedResultOf(category, now, details),
            ':one': 1,
            ':pending': 'pending',
            ':cutoff': activeCutoff(now),
          },
          // A refused write hands back the item it was refused on, so telling a duplicate from a closed check
          // costs no second read (DynamoDB does; dynalite ignores it, and the read below stands in).
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return 'recorded';
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      if (error.Item) return resultOf(unmarshall(error.Item), email);
    }
    const check = await this.get(checkId);
    const result = check?.results.find((candidate) => candidate.email === email);
    return result && result.category !== 'pending' ? 'already-recorded' : 'closed';
  }

  async recordResults(checkId: string, entries: readonly ResultEntry[], now: number): Promise<boolean> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {
      ':count': entries.length,
      ':pending': 'pending',
      ':cutoff': activeCutoff(now),
    };
    const sets: string[] = [];
    const pending: string[] = [];
    entries.forEach(({ email, category, details }, index) => {
      names[`#e${index}`] = email;
      // One placeholder per account whatever its details hold: 25 accounts stay far inside the 4 KB expression.
      values[`:r${index}`] = storedResultOf(category, now, details);
      sets.push(`results.#e${index} = :r${index}`);
      pending.push(`results.#e${index}.category = :pending`);
    });
    // As recordResult, for several accounts at once: every category and the counter move together, and only if
    // every one of them is still pending, so nothing can be counted twice.
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: checkKey(checkId),
          UpdateExpression: `SET ${sets.join(', ')} ADD received :count`,
          ConditionExpression: `${pending.join(' AND ')} AND createdAt >= :cutoff`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
  }

  async listActive(now: number, since?: number): Promise<PendingAccounts[]> {
    const active: PendingAccounts[] = [];
    const from = Math.max(activeCutoff(now), since ?? Number.NEGATIVE_INFINITY);
    for await (const item of this.checksCreatedSince(from, 'checkId, createdAt, emails, results')) {
      const pending = pendingEmailsOf(item);
      if (pending.length > 0)
        active.push({ checkId: String(item.checkId), createdAt: Number(item.createdAt), pending });
    }
    return active;
  }

  /** Check items created at or after `from`, newest last, from the one index partition that holds them all. */
  private async *checksCreatedSince(
    from: number,
    projection: string,
    filter?: string,
  ): AsyncGenerator<Record<string, unknown>> {
    const { index } = TABLE_SCHEMA;
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: '#pk = :pk AND #sk >= :from',
        ...(filter ? { FilterExpression: filter } : {}),
        ProjectionExpression: projection,
        ExpressionAttributeNames: { '#pk': index.partitionKey, '#sk': index.sortKey },
        ExpressionAttributeValues: { ':pk': CHECKS_BY_TIME, ':from': checkTimeSortKey(from) },
      },
    );
    for await (const page of pages) yield* page.Items ?? [];
  }

  async settle(now: number): Promise<SettledCheck[]> {
    const candidates: { checkId: string; createdAt: number; status: SettledCheck['status'] }[] = [];
    const unsettled = this.checksCreatedSince(
      now - RETENTION_MS,
      'checkId, createdAt, emails, received',
      'attribute_not_exists(settledAs)',
    );
    for await (const item of unsettled) {
      const check = { createdAt: Number(item.createdAt), received: Number(item.received) };
      const total = Array.isArray(item.emails) ? item.emails.length : 0;
      const status = check.received >= total ? 'complete' : isActive(check, now) ? undefined : 'timeout';
      if (status) candidates.push({ checkId: String(item.checkId), createdAt: check.createdAt, status });
    }
    const settled: SettledCheck[] = [];
    for (const candidate of candidates) {
      // Once per check, whichever scanner gets there first: the metric it feeds must not double-count.
      const first = await written(
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: checkKey(candidate.checkId),
            UpdateExpression: 'SET settledAs = :status, settledAt = :now',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(settledAs)',
            ExpressionAttributeValues: { ':status': candidate.status, ':now': now },
          }),
        ),
      );
      if (first) settled.push(candidate);
    }
    return settled;
  }
}

/** Why a result write was refused, from the item it was refused on: the account already has one, or the check is over. */
const resultOf = (item: Record<string, unknown>, email: string): RecordOutcome => {
  const results = item.results as Record<string, { category?: unknown }> | undefined;
  const category = results?.[email]?.category;
  return category !== undefined && category !== 'pending' ? 'already-recorded' : 'closed';
};
