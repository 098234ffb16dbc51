// Shard-aware listing, on AWS's own DynamoDB Local and on dynalite: under a layout of several scanner
// shards a check is filed under each shard its accounts fall in, and a shard's listing reads only its own partition
// of the open-checks index (plus the shared one for checks started before the layout settled).
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoOpenChecks, LAYOUT_SETTLE_MS } from '../../shared/adapters/dynamo/DynamoOpenChecks';
import { DynamoShardLayout } from '../../shared/adapters/dynamo/DynamoShardLayout';
import { DynamoWebhookStore } from '../../shared/adapters/dynamo/DynamoWebhookStore';
import { checkKey, OPEN_CHECKS, shardEntryKey, shardOpenPartition } from '../../shared/adapters/dynamo/keys';
import { newCheck } from '../../shared/domain/check';
import { newCheckId } from '../../shared/domain/checkId';
import { ACTIVE_MS } from '../../shared/domain/limits';
import { shardIndexOf } from '../../shared/scanner/shards';
import { settleCheck } from '../../shared/usecases/settleCheck';
import { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

const SHARDS = 4;
const MINUTE_MS = 60_000;

/** Two addresses for each of the 4 shards, found by the same hash the scanner uses. */
const byShard: string[][] = Array.from({ length: SHARDS }, () => []);
for (let n = 0; byShard.some((emails) => emails.length < 2); n++) {
  const email = `user${n}@mail.test`;
  const emails = byShard[shardIndexOf(email, SHARDS)];
  if (emails && emails.length < 2) emails.push(email);
}
const accountsOf = (...shards: number[]) => shards.flatMap((shard) => byShard[shard] ?? []).sort();

describe.each(['dynamodb-local', 'dynalite'] as const)('shard-aware listing on %s', (store) => {
  let service: TestService & { clock: ManualClock };
  /** The partition of the open-checks index each listing Query asked for. */
  const queried: string[] = [];
  // The real time: DynamoDB Local deletes items whose purgeAt has passed by the real clock.
  const startedAt = Date.now();

  beforeAll(async () => {
    service = await startTestService(new ManualClock(startedAt), { store });
    service.client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as {
          IndexName?: string;
          ExpressionAttributeValues?: Record<string, unknown>;
        };
        if (context.commandName === 'QueryCommand' && input.IndexName)
          queried.push(String(input.ExpressionAttributeValues?.[':pk']));
        return next(args);
      },
      { name: 'partitionSpy' },
    );
  });
  afterAll(async () => service.close());

  const shardStore = (index: number, count = SHARDS) =>
    new DynamoOpenChecks(
      service.client,
      service.table,
      new DynamoShardLayout(service.client, service.table),
      { index, count },
    );
  const create = async (emails: string[], createdAt = service.clock.now()) => {
    const check = newCheck(newCheckId(), 'default', emails, createdAt);
    await new DynamoCheckStore(
      service.client,
      service.table,
      new DynamoShardLayout(service.client, service.table),
    ).create(check);
    return check.checkId;
  };
  /** A shard's full listing once the index shows `expected` (the index is eventually consistent). */
  const listing = async (shard: DynamoOpenChecks, expected: Record<string, string[]>) =>
    vi.waitFor(
      async () => {
        queried.length = 0;
        const listed = Object.fromEntries(
          (await shard.listActive(service.clock.now())).map((check) => [check.checkId, check.pending]),
        );
        expect(listed).toEqual(expected);
        return [...queried];
      },
      { timeout: 10_000, interval: 50 },
    );
  const itemAt = async (key: Record<string, unknown>) =>
    (await service.client.send(new GetCommand({ TableName: service.table, Key: key, ConsistentRead: true })))
      .Item;

  it('under one shard (no layout published), a check has no shard entries and is listed from the shared partition', async () => {
    service.clock.set(startedAt);
    const id = await create(accountsOf(0, 1, 2, 3));
    const items = await service.client.send(
      new QueryCommand({
        TableName: service.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': checkKey(id).pk },
      }),
    );
    expect(items.Items?.map((item) => item.sk)).toEqual(['CHECK']);
    expect(await listing(shardStore(0, 1), { [id]: accountsOf(0, 1, 2, 3) })).toEqual([OPEN_CHECKS]);
    // A shard of a layout nobody published reads the shared partition too, and keeps what it is given.
    expect(await listing(shardStore(2), { [id]: accountsOf(0, 1, 2, 3) })).toEqual([OPEN_CHECKS]);
  });

  it('under 4 shards, files a check under each shard it touches, and each shard lists only its own partition', async () => {
    // Long after the layout was published: no check of the listed window can predate it.
    service.clock.set(startedAt + 20 * MINUTE_MS);
    await new DynamoShardLayout(service.client, service.table).publish(
      SHARDS,
      service.clock.now() - 10 * MINUTE_MS,
    );
    const spread = await create(accountsOf(0, 1));
    const alone = await create(accountsOf(2));
    expect((await itemAt(checkKey(spread)))?.shardEntries).toEqual(['SHARD#4#0', 'SHARD#4#1']);
    expect(await itemAt(shardEntryKey(spread, { index: 3, count: SHARDS }))).toBeUndefined();
    expect(await listing(shardStore(0), { [spread]: accountsOf(0) })).toEqual([
      shardOpenPartition({ index: 0, count: 4 }),
    ]);
    expect(await listing(shardStore(1), { [spread]: accountsOf(1) })).toEqual([
      shardOpenPartition({ index: 1, count: 4 }),
    ]);
    expect(await listing(shardStore(2), { [alone]: accountsOf(2) })).toEqual([
      shardOpenPartition({ index: 2, count: 4 }),
    ]);
    const three = shardStore(3);
    expect(await listing(three, {})).toEqual([shardOpenPartition({ index: 3, count: 4 })]);
    // Incremental listings use the layout the last full one read: still the shard's own partition only.
    queried.length = 0;
    await three.listActive(service.clock.now(), service.clock.now() - 1000);
    expect(queried).toEqual([shardOpenPartition({ index: 3, count: 4 })]);
  });

  it('lists checks started before the layout settled from the shared partition, with their current pending set', async () => {
    service.clock.set(startedAt + 40 * MINUTE_MS);
    const layout = new DynamoShardLayout(service.client, service.table);
    // Published as 2 shards: this check is filed under the 2-shard layout, which the 4 shards below cannot read.
    await layout.publish(2, service.clock.now() - 10 * MINUTE_MS);
    const before = await create(accountsOf(0, 1, 2, 3));
    await new DynamoOpenChecks(
      service.client,
      service.table,
      new DynamoShardLayout(service.client, service.table),
    ).recordResult(before, accountsOf(1)[0] as string, 'spam', service.clock.now());
    expect(await layout.publish(SHARDS, service.clock.now())).toBe(true);
    // Publishing the same count again keeps the moment it changed.
    service.clock.advance(1000);
    expect(await layout.publish(SHARDS, service.clock.now())).toBe(false);
    expect((await layout.read())?.since).toBe(service.clock.now() - 1000);
    const after = await create(accountsOf(1), service.clock.now() + LAYOUT_SETTLE_MS + 1);
    service.clock.advance(LAYOUT_SETTLE_MS + 1);
    const own = shardOpenPartition({ index: 1, count: 4 });
    // The shared partition's pending set is the current one: the result recorded above is not pending any more.
    const pendingBefore = [...accountsOf(0, 1, 2, 3)].filter((email) => email !== accountsOf(1)[0]);
    const partitions = await listing(shardStore(1), { [before]: pendingBefore, [after]: accountsOf(1) });
    expect(partitions).toEqual([OPEN_CHECKS, own]);
    // Once every check of the listed window started after the layout settled, only the own partition is read.
    service.clock.advance(ACTIVE_MS + 1);
    expect(await listing(shardStore(1), {})).toEqual([own]);
  });

  it("removes a check's shard entries when it is settled, once", async () => {
    service.clock.set(startedAt + 60 * MINUTE_MS);
    await new DynamoShardLayout(service.client, service.table).publish(
      SHARDS,
      service.clock.now() - 10 * MINUTE_MS,
    );
    const checks = settleCheck({
      store: new DynamoOpenChecks(
        service.client,
        service.table,
        new DynamoShardLayout(service.client, service.table),
      ),
      queue: new DynamoWebhookStore(service.client, service.table),
    });
    const id = await create(accountsOf(0, 3));
    for (const email of accountsOf(0, 3))
      await checks.recordResult(id, email, 'primary', service.clock.now());
    const settled = await vi.waitFor(
      async () => {
        const done = await checks.settle(service.clock.now());
        expect(done.map((check) => check.checkId)).toContain(id);
        return done;
      },
      { timeout: 10_000, interval: 50 },
    );
    expect(settled.filter((check) => check.checkId === id)).toEqual([
      { checkId: id, createdAt: service.clock.now(), status: 'complete' },
    ]);
    expect(await itemAt(shardEntryKey(id, { index: 0, count: SHARDS }))).toBeUndefined();
    expect(await itemAt(shardEntryKey(id, { index: 3, count: SHARDS }))).toBeUndefined();
    expect((await itemAt(checkKey(id)))?.shardEntries).toBeUndefined();
    expect(await listing(shardStore(0), {})).toEqual([shardOpenPartition({ index: 0, count: 4 })]);
  });

  it('tells the pages of a listing as they are read, the first of 100 checks, together the whole listing', async () => {
    // Later than every check above (those of the test before may still be in the window: listed too).
    service.clock.set(startedAt + 40 * MINUTE_MS);
    const ids: string[] = [];
    for (let batch = 0; batch < 6; batch++)
      ids.push(...(await Promise.all(Array.from({ length: 25 }, () => create(accountsOf(batch % SHARDS))))));
    const store = shardStore(0, 1);
    const listed = await vi.waitFor(
      async () => {
        const all = await store.listActive(service.clock.now());
        expect(all.filter((check) => ids.includes(check.checkId)).length).toBe(ids.length);
        return all;
      },
      { timeout: 10_000, interval: 50 },
    );
    const pages: string[][] = [];
    const told = await store.listActive(service.clock.now(), undefined, (page) =>
      pages.push(page.map((check) => check.checkId)),
    );
    expect(told).toEqual(listed);
    expect(pages[0]?.length).toBe(100);
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(pages.flat()).toEqual(told.map((check) => check.checkId));
    expect(pages.flat()).toEqual(expect.arrayContaining(ids));
  });
});
