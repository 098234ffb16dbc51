// Owns the scanner's side of checks in DynamoDB: listing the open ones for one scanner shard, and the conditional
// writes that record results once each and settle a check once. When a check has ended is settleCheck's rule.
import {
  type DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DetectedCategory } from '../../domain/categories';
import { activeCutoff, type Check, type CheckCounts } from '../../domain/check';
import type { PlacementDetails, RecordOutcome } from '../../domain/ports';
import type { ShardLayout, ShardLayoutStore } from '../../domain/shardLayout';
import type { PendingAccounts, ResultEntry, SettledCheck } from '../../scanner/scannerPorts';
import { type Shard, SINGLE_SHARD } from '../../scanner/shards';
import type { SettlementStore, UnsettledCheck } from '../../usecases/settleCheck';
import { deleteRequest, writeAll } from './batchWrite';
import { checkFromItem, pendingEmailsOf, storedResultOf } from './checkItem';
import { isConditionFailed, written } from './conditionalWrite';
import {
  checkKey,
  checkTimeSortKey,
  hasCallbackUrlMark,
  OPEN_CHECKS,
  SHARD_ENTRIES,
  shardEntryKeysOf,
  shardOpenPartition,
} from './keys';
import { TABLE_SCHEMA } from './table';

/**
 * After the layout changes, checks started up to this long after the change are listed from the one partition that
 * holds every open check, not from a shard's own: starting a check reads the layout (strongly consistent) after its
 * start time is stamped, so only a check started before the change, or within the clocks' disagreement between the
 * API's machine and the scanner's, can be filed under the old layout.
 */
export const LAYOUT_SETTLE_MS = 60_000;

/**
 * Checks on the first page of a listing whose pages are told as they are read: a short first page answers in one
 * quick round trip, so a loop's first sweep starts its logins while the rest (up to 1 MB a page) is read.
 */
const FIRST_PAGE_CHECKS = 100;

export class DynamoOpenChecks implements SettlementStore {
  /** The layout as this shard's last full listing read it. */
  private listedLayout: ShardLayout | undefined;

  /** `layout`: the scanner's shard layout; `shard`: the scanner loop this store lists open checks for. */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly layout: Pick<ShardLayoutStore, 'read'>,
    private readonly shard: Shard = SINGLE_SHARD,
  ) {}

  async recordResult(
    checkId: string,
    email: string,
    category: DetectedCategory,
    now: number,
    details: PlacementDetails = {},
  ): Promise<{ outcome: RecordOutcome; counts?: CheckCounts }> {
    try {
      // One conditional UpdateItem: the result (category, details), the counter and the pending set move together or
      // not at all, so rescans, duplicate deliveries and racing scanners can never count an account twice. The
      // result's map is written whole: while pending it holds only its category, so nothing else is lost.
      const { Attributes } = await this.client.send(
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
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { outcome: 'recorded', counts: countsOf(Attributes) };
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
      if (error.Item) return { outcome: resultOf(unmarshall(error.Item), email) };
    }
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: checkKey(checkId), ConsistentRead: true }),
    );
    const result = Item && checkFromItem(Item).results.find((candidate) => candidate.email === email);
    return { outcome: result && result.category !== 'pending' ? 'already-recorded' : 'closed' };
  }

  async recordResults(
    checkId: string,
    entries: readonly ResultEntry[],
    now: number,
  ): Promise<CheckCounts | undefined> {
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
    const update = this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: checkKey(checkId),
        UpdateExpression: `SET ${sets.join(', ')} ADD received :count DELETE #pendingSet :emails`,
        ConditionExpression: `${pending.join(' AND ')} AND createdAt >= :cutoff`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return (await written(update)) ? countsOf((await update).Attributes) : undefined;
  }

  /**
   * The open checks started at or after `since` (all of them without it: a full listing) with the accounts each still
   * waits for. One shard (or a layout other than this shard's) reads the partition that holds every open check;
   * a shard of the current layout reads its own partition, plus the shared one for checks started before the layout
   * settled. A shard's own entries keep the accounts they were started with: the scanner forgets the ones it placed.
   */
  async listActive(
    now: number,
    since?: number,
    onPage?: (page: readonly PendingAccounts[]) => void,
  ): Promise<PendingAccounts[]> {
    const from = Math.max(activeCutoff(now), since ?? Number.NEGATIVE_INFINITY);
    const own = await this.ownPartition(since === undefined);
    const listed = new Map<string, PendingAccounts>();
    const attributes = ['checkId', 'createdAt', 'pending'] as const;
    const partitions = own
      ? [
          ...(from < own.settled ? [{ partition: OPEN_CHECKS, until: own.settled }] : []),
          { partition: own.partition, until: undefined },
        ]
      : [{ partition: OPEN_CHECKS, until: undefined }];
    let firstPage = onPage ? FIRST_PAGE_CHECKS : undefined;
    for (const { partition, until } of partitions) {
      for await (const items of this.openChecks(partition, from, until, attributes, firstPage)) {
        firstPage = undefined;
        const page: PendingAccounts[] = [];
        for (const item of items) {
          const pending = pendingEmailsOf(item);
          const checkId = String(item.checkId);
          // The shared partition is read first and its pending set is the current one: it wins a check listed twice.
          if (pending.length === 0 || listed.has(checkId)) continue;
          const entry = { checkId, createdAt: Number(item.createdAt), pending };
          listed.set(checkId, entry);
          page.push(entry);
        }
        if (page.length > 0) onPage?.(page);
      }
    }
    return [...listed.values()];
  }

  /** This shard's own partition, and when the layout that gave it settled; undefined: read the shared one. */
  private async ownPartition(reread: boolean) {
    if (this.shard.count <= 1) return undefined;
    if (reread || !this.listedLayout) this.listedLayout = await this.layout.read();
    const layout = this.listedLayout;
    if (!layout || layout.count !== this.shard.count) return undefined;
    return { partition: shardOpenPartition(this.shard), settled: layout.since + LAYOUT_SETTLE_MS };
  }

  /**
   * Unsettled checks of one partition of the open-checks index created at or after `from` (and up to `until`),
   * oldest first, page by page (the first of at most `firstPage` checks); only the few attributes it projects are read
   * (never the accounts' results).
   */
  private async *openChecks(
    partition: string,
    from: number,
    until: number | undefined,
    attributes: readonly string[],
    firstPage?: number,
  ): AsyncGenerator<Record<string, unknown>[]> {
    const index = TABLE_SCHEMA.openChecks;
    const names = Object.fromEntries(attributes.map((name, at) => [`#a${at}`, name]));
    const input: QueryCommandInput = {
      TableName: this.tableName,
      IndexName: index.name,
      KeyConditionExpression:
        until === undefined ? '#pk = :pk AND #sk >= :from' : '#pk = :pk AND #sk BETWEEN :from AND :until',
      ProjectionExpression: Object.keys(names).join(', '),
      ExpressionAttributeNames: { ...names, '#pk': index.partitionKey, '#sk': index.sortKey },
      ExpressionAttributeValues: {
        ':pk': partition,
        ':from': checkTimeSortKey(from),
        ...(until === undefined ? {} : { ':until': checkTimeSortKey(until) }),
      },
    };
    let startingToken: Record<string, unknown> | undefined;
    if (firstPage !== undefined) {
      const first = await this.client.send(new QueryCommand({ ...input, Limit: firstPage }));
      yield first.Items ?? [];
      if (!first.LastEvaluatedKey) return;
      startingToken = first.LastEvaluatedKey;
    }
    const pages = paginateQuery({ client: this.client, ...(startingToken ? { startingToken } : {}) }, input);
    for await (const page of pages) yield page.Items ?? [];
  }

  /** The unsettled checks created at or after `since`: the index holds only those (settling takes a check out). */
  async *unsettled(since: number): AsyncGenerator<UnsettledCheck[]> {
    const sortKey = TABLE_SCHEMA.openChecks.sortKey;
    const attributes = ['checkId', 'createdAt', 'received', 'total', sortKey];
    for await (const page of this.openChecks(OPEN_CHECKS, since, undefined, attributes))
      yield page.map((item) => ({
        checkId: String(item.checkId),
        createdAt: Number(item.createdAt),
        received: Number(item.received),
        total: Number(item.total),
        hasCallbackUrl: hasCallbackUrlMark(item[sortKey]),
      }));
  }

  async unsettledCheck(checkId: string): Promise<Check | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: checkKey(checkId), ConsistentRead: true }),
    );
    return Item && Item.settledAs === undefined ? checkFromItem(Item) : undefined;
  }

  async markSettled(
    checks: readonly Pick<SettledCheck, 'checkId' | 'status'>[],
    now: number,
  ): Promise<Set<string>> {
    const index = TABLE_SCHEMA.openChecks;
    const settled = new Set<string>();
    const entries: Record<string, unknown>[] = [];
    for (const { checkId, status } of checks) {
      // Once per check, whichever scanner gets there first: the metric it feeds must not double-count. The same
      // write removes the check's open-checks keys, so it leaves the index that listing and settling read.
      const settling = this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: checkKey(checkId),
          UpdateExpression: `SET settledAs = :status, settledAt = :now REMOVE #openPk, #openSk, ${SHARD_ENTRIES}`,
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(settledAs)',
          ExpressionAttributeNames: { '#openPk': index.partitionKey, '#openSk': index.sortKey },
          ExpressionAttributeValues: { ':status': status, ':now': now },
          // What it held before, for the sort keys of its shard entries (returned values are not billed).
          ReturnValues: 'ALL_OLD',
        }),
      );
      if (!(await written(settling))) continue;
      settled.add(checkId);
      entries.push(...shardEntryKeysOf(checkId, (await settling).Attributes?.[SHARD_ENTRIES]));
    }
    // Its shard entries leave their shards' partitions with it. Entries a failure here leaves behind are harmless:
    // a shard forgets the accounts it placed, listings skip checks whose window has ended, and they expire with it.
    await writeAll(this.client, this.tableName, entries.map(deleteRequest)).catch(() => undefined);
    return settled;
  }
}

/** A recorded check's counts, from the item a result write returned (ALL_NEW). */
const countsOf = (item: Record<string, unknown> | undefined): CheckCounts | undefined =>
  item && {
    createdAt: Number(item.createdAt),
    received: Number(item.received),
    total: Number(item.total),
  };

/** Why a result write was refused, from the item it was refused on: the account already has one, or the check is over. */
const resultOf = (item: Record<string, unknown>, email: string): RecordOutcome => {
  const results = item.results as Record<string, { category?: unknown }> | undefined;
  const category = results?.[email]?.category;
  return category !== undefined && category !== 'pending' ? 'already-recorded' : 'closed';
};
