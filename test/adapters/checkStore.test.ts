// The check store on AWS's own DynamoDB Local, and on the dynalite npm start uses: the active index, exactly-once
// results and exactly-once settling, which rest on conditional writes.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { ACTIVE_MS, RETENTION_MS } from '../../shared/domain/limits';
import { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

const HOUR_MS = 60 * 60 * 1000;

describe.each(['dynamodb-local', 'dynalite'] as const)('DynamoCheckStore on %s', (store) => {
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
    const checks = service.deps.checks as typeof service.deps.checks & {
      listActive(now: number): Promise<{ checkId: string; pending: string[] }[]>;
    };
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
    const store = service.deps.checks as typeof service.deps.checks & {
      settle(now: number): Promise<{ checkId: string; status: string }[]>;
    };
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
    const store = service.deps.checks as typeof service.deps.checks & DynamoCheckStore;
    const now = service.clock.now();
    const both = await start();
    const entries = [
      { email: 'a@mail.test', category: 'spam' as const, details: { folder: 'Junk' } },
      { email: 'b@mail.test', category: 'promotions' as const, details: { folder: 'INBOX' } },
    ];
    expect(await store.recordResults(both, entries, now)).toBe(true);
    const check = await store.get(both);
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
    const after = await store.get(half);
    expect(after?.received).toBe(1);
    expect(after?.results.map((result) => result.category)).toEqual(['primary', 'pending']);
    // A closed check takes none.
    const closed = await start();
    service.clock.advance(ACTIVE_MS + 1);
    expect(await store.recordResults(closed, entries, service.clock.now())).toBe(false);
    expect((await store.get(closed))?.received).toBe(0);
  });
});
