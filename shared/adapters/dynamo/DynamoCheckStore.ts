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
  checkFromItem,
  checkKey,
  checkTimeSortKey,
  checkToItem,
  OPEN_CHECKS,
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
      // One conditional UpdateItem: the result (category, details), the counter and the pending set move together or
      // not at all, so rescans, duplicate deliveries and racing scanners can never count an account twice. The
      // result's map is written whole: while pending it holds only its category, so nothing else is lost.
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: checkKey(checkId),
          UpdateExpression: 'SET results.#email = :result ADD received :one DELETE #pendingSet :emails',
          ConditionExpression: 'results.#email.category = :pending AND createdAt >= :cutoff',
          ExpressionAttributeNames: { '#email': email, '#pendingSet': 'pending' },
          ExpressionAttributeValues: {
            ':result': storedResultOf(category, now, details),
            ':one': 1,
            ':emails': new Set([email]),
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
    const names: Record<string, string> = { '#pendingSet': 'pending' };
    const values: Record<string, unknown> = {
      ':count': entries.length,
      ':emails': new Set(entries.map((entry) => entry.email)),
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
          UpdateExpression: `SET ${sets.join(', ')} ADD received :count DELETE #pendingSet :emails`,
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
    for await (const item of this.openChecksCreatedSince(from, ['checkId', 'createdAt', 'pending'])) {
      const pending = pendingEmailsOf(item);
      if (pending.length > 0)
        active.push({ checkId: String(item.checkId), createdAt: Number(item.createdAt), pending });
    }
    return active;
  }

  /**
   * Unsettled checks created at or after `from`, oldest first, from the open-checks index: one partition holds them
   * all, and only the few attributes it projects are read (never the accounts' results).
   */
  private async *openChecksCreatedSince(
    from: number,
    attributes: readonly (typeof TABLE_SCHEMA.openChecks.projected)[number][],
  ): AsyncGenerator<Record<string, unknown>> {
    const index = TABLE_SCHEMA.openChecks;
    const names = Object.fromEntries(attributes.map((name, at) => [`#a${at}`, name]));
    const pages = paginateQuery(
      { client: this.client },
      {
        TableName: this.tableName,
        IndexName: index.name,
        KeyConditionExpression: '#pk = :pk AND #sk >= :from',
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: { ...names, '#pk': index.partitionKey, '#sk': index.sortKey },
        ExpressionAttributeValues: { ':pk': OPEN_CHECKS, ':from': checkTimeSortKey(from) },
      },
    );
    for await (const page of pages) yield* page.Items ?? [];
  }

  async settle(now: number): Promise<SettledCheck[]> {
    const candidates: { checkId: string; createdAt: number; status: SettledCheck['status'] }[] = [];
    // The index holds only unsettled checks: a settled one left it in the write that settled it.
    const unsettled = this.openChecksCreatedSince(now - RETENTION_MS, [
      'checkId',
      'createdAt',
      'received',
      'total',
    ]);
    for await (const item of unsettled) {
      const check = { createdAt: Number(item.createdAt), received: Number(item.received) };
      const status =
        check.received >= Number(item.total) ? 'complete' : isActive(check, now) ? undefined : 'timeout';
      if (status) candidates.push({ checkId: String(item.checkId), createdAt: check.createdAt, status });
    }
    const index = TABLE_SCHEMA.openChecks;
    const settled: SettledCheck[] = [];
    for (const candidate of candidates) {
      // Once per check, whichever scanner gets there first: the metric it feeds must not double-count. The same
      // write removes the check's open-checks keys, so it leaves the index that listing and settling read.
      const first = await written(
        this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: checkKey(candidate.checkId),
            UpdateExpression: 'SET settledAs = :status, settledAt = :now REMOVE #openPk, #openSk',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(settledAs)',
            ExpressionAttributeNames: { '#openPk': index.partitionKey, '#openSk': index.sortKey },
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
