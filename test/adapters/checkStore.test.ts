// The check store on AWS's own DynamoDB Local, and on the dynalite npm start uses: the open-checks index and the
// pending set it lists, exactly-once results and exactly-once settling, which rest on conditional writes.
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkKey, OPEN_CHECKS } from '../../shared/adapters/dynamo/keys';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { ACTIVE_MS, RETENTION_MS } from '../../shared/domain/limits';
import { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

const HOUR_MS = 60 * 60 * 1000;

describe.each(['dynamodb-local', 'dynalite'] as const)('DynamoOpenChecks on %s', (store) => {
  let service: TestService & { clock: ManualClock };
  /**
   * The test clock starts at the real time, never at a fixed date: DynamoDB Local, like DynamoDB, deletes an item
   * once its purgeAt (created + 10 minutes) has passed by the real clock, at a moment of its own choosing. Checks
   * created at a fixed date in the past vanished between two steps of a test, about one run in three.
   */
  const startedAt = Date.now();
  beforeAll(async () => {
    service = await startTestService(new ManualClock(startedAt), { store });
    await service.addAccounts({ email: 'a@mail.test' }, { email: 'b@mail.test' });
  });
  afterAll(async () => service.close());

  const start = async () => {
    const key = await service.issueKey('default');
    const response = await service.request('POST', '/api/spam-check/start', {
      authorization: `Bearer ${key}`,
    });
    expect(response.status).toBe(200);
    return (response.body as { check_id: string }).check_id;
  };

  /**
   * The index is eventually consistent, on DynamoDB as on DynamoDB Local (under load it lags by a few hundred ms):
   * a read through it is repeated until it shows what the base table already holds, for at most 10 s.
   */
  const throughIndex = async <T>(read: () => Promise<T>, shows: (value: T) => boolean): Promise<T> =>
    vi.waitFor(
      async () => {
        const value = await read();
        if (!shows(value)) throw new Error(`the index does not show it yet: ${JSON.stringify(value)}`);
        return value;
      },
      { timeout: 10_000, interval: 50 },
    );
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

  it('lists a check as active with its pending accounts until it completes or its 5 minutes pass', async () => {
    const checks = service.openChecks;
    const id = await start();
    const mine = async () =>
      (await checks.listActive(service.clock.now())).find((check) => check.checkId === id);
    const both = ['a@mail.test', 'b@mail.test'];
    expect((await throughIndex(mine, (check) => same(check?.pending, both)))?.pending).toEqual(both);
    await checks.recordResult(id, 'a@mail.test', 'spam', service.clock.now());
    const one = ['b@mail.test'];
    expect((await throughIndex(mine, (check) => same(check?.pending, one)))?.pending).toEqual(one);
    service.clock.advance(ACTIVE_MS + 1);
    expect(await mine()).toBeUndefined();
  });

  it('settles each check once: complete as soon as every account is in, timeout after 5 minutes', async () => {
    service.clock.set(startedAt + HOUR_MS);
    const store = service.openChecks;
    const complete = await start();
    const late = await start();
    await store.recordResult(complete, 'a@mail.test', 'primary', service.clock.now());
    await store.recordResult(complete, 'b@mail.test', 'updates', service.clock.now());
    await store.recordResult(late, 'a@mail.test', 'primary', service.clock.now());
    // Settling reads the index: wait until it shows both writes (complete has no pending account left).
    const listed = async () => {
      const active = await (
        store as unknown as { listActive(now: number): Promise<{ checkId: string; pending: string[] }[]> }
      ).listActive(service.clock.now());
      return active
        .filter((check) => [complete, late].includes(check.checkId))
        .map(({ checkId, pending }) => ({ checkId, pending }));
    };
    await throughIndex(listed, (active) => same(active, [{ checkId: late, pending: ['b@mail.test'] }]));

    const first = await store.settle(service.clock.now());
    expect(first.filter((c) => [complete, late].includes(c.checkId))).toEqual([
      expect.objectContaining({ checkId: complete, status: 'complete' }),
    ]);
    expect((await store.settle(service.clock.now())).map((c) => c.checkId)).not.toContain(complete);

    service.clock.advance(ACTIVE_MS + 1);
    const [a, b] = await Promise.all([store.settle(service.clock.now()), store.settle(service.clock.now())]);
    const timedOut = [...a, ...b].filter((c) => c.checkId === late);
    expect(timedOut).toEqual([expect.objectContaining({ checkId: late, status: 'timeout' })]);

    service.clock.advance(RETENTION_MS);
    expect(await store.settle(service.clock.now())).toEqual([]);
  });

  it('records several accounts of a check in one write, all or none, and never counts one twice', async () => {
    service.clock.set(startedAt + 2 * HOUR_MS);
    const store = service.openChecks;
    const now = service.clock.now();
    const both = await start();
    const entries = [
      { email: 'a@mail.test', category: 'spam' as const, details: { folder: 'Junk' } },
      { email: 'b@mail.test', category: 'promotions' as const, details: { folder: 'INBOX' } },
    ];
    expect(await store.recordResults(both, entries, now)).toBe(true);
    const check = await service.deps.checks.get(both);
    expect(check?.received).toBe(2);
    expect(check?.results.map((result) => [result.email, result.category])).toEqual([
      ['a@mail.test', 'spam'],
      ['b@mail.test', 'promotions'],
    ]);
    // Again, or with one of them already in: refused whole, nothing written.
    expect(await store.recordResults(both, entries, now)).toBe(false);
    const half = await start();
    await store.recordResult(half, 'a@mail.test', 'primary', now);
    expect(await store.recordResults(half, entries, now)).toBe(false);
    const after = await service.deps.checks.get(half);
    expect(after?.received).toBe(1);
    expect(after?.results.map((result) => result.category)).toEqual(['primary', 'pending']);
    // A closed check takes none.
    const closed = await start();
    service.clock.advance(ACTIVE_MS + 1);
    expect(await store.recordResults(closed, entries, service.clock.now())).toBe(false);
    expect((await service.deps.checks.get(closed))?.received).toBe(0);
  });

  /** The stored check item as DynamoDB holds it (strongly consistent). */
  const storedItem = async (checkId: string) =>
    (
      await service.client.send(
        new GetCommand({ TableName: service.table, Key: checkKey(checkId), ConsistentRead: true }),
      )
    ).Item;
  const { openChecks } = TABLE_SCHEMA;
  /** Every entry of the open-checks index, read straight from DynamoDB: what listing and settling can see. */
  const openEntries = async () =>
    (
      await service.client.send(
        new QueryCommand({
          TableName: service.table,
          IndexName: openChecks.name,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': openChecks.partitionKey },
          ExpressionAttributeValues: { ':pk': OPEN_CHECKS },
        }),
      )
    ).Items ?? [];
  const sorted = (values: string[]) => [...values].sort();

  it('keeps the accounts without a result in a pending set that each result write shrinks, gone once empty', async () => {
    service.clock.set(startedAt + 3 * HOUR_MS);
    const store = service.openChecks;
    const now = service.clock.now();
    const id = await start();
    const created = await storedItem(id);
    expect(created?.pending).toEqual(new Set(['a@mail.test', 'b@mail.test']));
    expect(created?.total).toBe(2);
    // Accounts by scope is for accounts: a check has no key there, so no result write is copied into it.
    expect(created?.[TABLE_SCHEMA.accountsByScope.partitionKey]).toBeUndefined();

    expect(await store.recordResult(id, 'a@mail.test', 'spam', now)).toBe('recorded');
    expect((await storedItem(id))?.pending).toEqual(new Set(['b@mail.test']));
    // A refused duplicate changes nothing.
    expect(await store.recordResult(id, 'a@mail.test', 'primary', now)).toBe('already-recorded');
    expect((await storedItem(id))?.pending).toEqual(new Set(['b@mail.test']));

    const entries = [{ email: 'b@mail.test', category: 'promotions' as const, details: { folder: 'INBOX' } }];
    expect(await store.recordResults(id, entries, now)).toBe(true);
    // DynamoDB keeps no empty set: the last account's write removes the attribute, which reads as none pending.
    const done = await storedItem(id);
    expect(done && 'pending' in done).toBe(false);
    expect(done?.received).toBe(2);
  });

  it('lists exactly the open checks with pending accounts, and a settled check leaves the index', async () => {
    service.clock.set(startedAt + 4 * HOUR_MS);
    const store = service.openChecks;
    const now = service.clock.now();
    const untouched = await start();
    const half = await start();
    const complete = await start();
    await store.recordResult(half, 'b@mail.test', 'primary', now);
    await store.recordResults(
      complete,
      ['a@mail.test', 'b@mail.test'].map((email) => ({ email, category: 'primary' as const, details: {} })),
      now,
    );
    const mine = [untouched, half, complete];
    // Started in the same millisecond, they list in check-id order: compared by id.
    const listed = async () =>
      (await store.listActive(service.clock.now()))
        .filter((check) => mine.includes(check.checkId))
        .map(({ checkId, pending }) => ({ checkId, pending }))
        .sort((a, b) => a.checkId.localeCompare(b.checkId));
    const expected = [
      { checkId: untouched, pending: ['a@mail.test', 'b@mail.test'] },
      { checkId: half, pending: ['a@mail.test'] },
    ].sort((a, b) => a.checkId.localeCompare(b.checkId));
    expect(await throughIndex(listed, (active) => same(active, expected))).toEqual(expected);

    // The complete check is still in the index (unsettled) until settling takes it out in the same write.
    const openIds = async () =>
      sorted((await openEntries()).map((entry) => String(entry.checkId)).filter((id) => mine.includes(id)));
    expect(await throughIndex(openIds, (ids) => ids.length === 3)).toEqual(sorted(mine));
    const entry = (await openEntries()).find((candidate) => candidate.checkId === complete);
    // The index holds the listing's few attributes (pending: none left here), never emails or results.
    expect(sorted(Object.keys(entry ?? {}))).toEqual(
      sorted([
        'pk',
        'sk',
        openChecks.partitionKey,
        openChecks.sortKey,
        'checkId',
        'createdAt',
        'received',
        'total',
      ]),
    );

    const settled = await store.settle(service.clock.now());
    expect(settled.filter((check) => mine.includes(check.checkId)).map((check) => check.checkId)).toEqual([
      complete,
    ]);
    expect(await throughIndex(openIds, (ids) => ids.length === 2)).toEqual(sorted([untouched, half]));
    const item = await storedItem(complete);
    expect(item?.settledAs).toBe('complete');
    expect(item?.[openChecks.partitionKey]).toBeUndefined();
    expect(item?.[openChecks.sortKey]).toBeUndefined();

    // Timed out: settled, and out of the index too.
    service.clock.advance(ACTIVE_MS + 1);
    expect(await store.listActive(service.clock.now())).toEqual([]);
    const late = await store.settle(service.clock.now());
    expect(late.filter((check) => mine.includes(check.checkId)).map((check) => check.status)).toEqual([
      'timeout',
      'timeout',
    ]);
    expect(await throughIndex(openIds, (ids) => ids.length === 0)).toEqual([]);
  });

  it("lists only the checks created since a mark when asked (the scanner's incremental listing)", async () => {
    service.clock.set(startedAt + 5 * HOUR_MS);
    const store = service.openChecks;
    const earlier = await start();
    service.clock.advance(1000);
    const mark = service.clock.now();
    const later = await start();
    service.clock.advance(1000);
    const ids = (checks: { checkId: string }[]) =>
      checks.map((check) => check.checkId).filter((id) => [earlier, later].includes(id));
    const all = await throughIndex(
      async () => ids(await store.listActive(service.clock.now())),
      (found) => found.length === 2,
    );
    expect(all).toEqual([earlier, later]);
    expect(ids(await store.listActive(service.clock.now(), mark))).toEqual([later]);
    expect(ids(await store.listActive(service.clock.now(), mark + 1))).toEqual([]);
  });
});
