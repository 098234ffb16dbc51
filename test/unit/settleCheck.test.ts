// Settling as a use case: the domain's complete/timeout rule decides which checks end, each ended check's webhook is
// queued before the write that settles it, and only the check whose result write completed it queues at once. Over an
// in-memory store with the conditional writes' rules; the DynamoDB writes themselves are test/adapters/checkStore.
// Checks stored before the callback URL kept one name are read as written.
import { describe, expect, it } from 'vitest';
import { checkFromItem } from '../../shared/adapters/dynamo/checkItem';
import { hasCallbackUrlMark, openCheckKey } from '../../shared/adapters/dynamo/keys';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { deliveryFromItem, deliveryToItem } from '../../shared/adapters/dynamo/webhookItem';
import { type Check, type CheckCounts, newCheck } from '../../shared/domain/check';
import { ACTIVE_MS } from '../../shared/domain/limits';
import type { RecordOutcome } from '../../shared/domain/ports';
import type { ResultEntry, SettledCheck } from '../../shared/scanner/scannerPorts';
import { type SettlementStore, settleCheck, type UnsettledCheck } from '../../shared/usecases/settleCheck';
import { newDelivery, type WebhookDelivery } from '../../shared/webhooks/domain/webhook';

const T0 = 1_700_000_000_000;
const CALLBACK = { callbackUrl: 'https://hooks.example.com/placement', keyId: 'key1', reportUrl: '/r' };

/** Checks in memory, with the store's rules: a result once, only while active; a check settled once. */
class MemorySettlement implements SettlementStore {
  readonly checks = new Map<string, Check & { settled?: SettledCheck['status'] }>();
  readonly log: string[] = [];
  add(check: Check) {
    this.checks.set(check.checkId, check);
  }
  private countsOf(check: Check): CheckCounts {
    return { createdAt: check.createdAt, received: check.received, total: check.results.length };
  }
  async listActive() {
    return [];
  }
  async recordResult(checkId: string, email: string, category: 'primary', now: number) {
    const check = this.checks.get(checkId);
    const result = check?.results.find((entry) => entry.email === email);
    if (!check || !result || now - check.createdAt > ACTIVE_MS) return { outcome: 'closed' as RecordOutcome };
    if (result.category !== 'pending') return { outcome: 'already-recorded' as RecordOutcome };
    result.category = category;
    check.received++;
    return { outcome: 'recorded' as RecordOutcome, counts: this.countsOf(check) };
  }
  async recordResults(checkId: string, entries: readonly ResultEntry[], now: number) {
    let counts: CheckCounts | undefined;
    for (const entry of entries)
      counts = (await this.recordResult(checkId, entry.email, 'primary', now)).counts ?? counts;
    return counts;
  }
  async *unsettled(): AsyncGenerator<UnsettledCheck[]> {
    yield [...this.checks.values()]
      .filter((check) => !check.settled)
      .map((check) => ({
        checkId: check.checkId,
        hasCallbackUrl: !!check.callback,
        ...this.countsOf(check),
      }));
  }
  async unsettledCheck(checkId: string) {
    const check = this.checks.get(checkId);
    return check?.settled ? undefined : check;
  }
  async markSettled(checks: readonly Pick<SettledCheck, 'checkId' | 'status'>[]) {
    const settled = new Set<string>();
    for (const { checkId, status } of checks) {
      const check = this.checks.get(checkId);
      if (!check || check.settled) continue;
      check.settled = status;
      this.log.push(`settled ${checkId}`);
      settled.add(checkId);
    }
    return settled;
  }
}

const setUp = () => {
  const store = new MemorySettlement();
  const queued = new Map<string, WebhookDelivery>();
  const told: string[] = [];
  const checks = settleCheck({
    store,
    queue: {
      enqueue: async (delivery) => {
        store.log.push(`queued ${delivery.checkId}`);
        if (!queued.has(delivery.checkId)) queued.set(delivery.checkId, delivery);
      },
    },
    onQueued: (checkId) => told.push(checkId),
  });
  return { store, queued, told, checks };
};

describe('settling a check', () => {
  it('settles complete and timed-out checks once each, by the domain rule, and leaves pending ones open', async () => {
    const { store, checks } = setUp();
    store.add(newCheck('done', 'default', ['a@x.test'], T0));
    store.add(newCheck('late', 'default', ['a@x.test', 'b@x.test'], T0));
    store.add(newCheck('fresh', 'default', ['a@x.test'], T0 + ACTIVE_MS));
    await checks.recordResult('done', 'a@x.test', 'primary', T0 + 1);
    await checks.recordResult('late', 'a@x.test', 'primary', T0 + 1);

    expect(await checks.settle(T0 + 2)).toEqual([{ checkId: 'done', createdAt: T0, status: 'complete' }]);
    expect(await checks.settle(T0 + ACTIVE_MS + 1)).toEqual([
      { checkId: 'late', createdAt: T0, status: 'timeout' },
    ]);
    expect(await checks.settle(T0 + ACTIVE_MS + 2)).toEqual([]);
    expect(store.checks.get('fresh')?.settled).toBeUndefined();
  });

  it("queues an ended check's webhook before the write that settles it, and tells of it once settled", async () => {
    const { store, queued, told, checks } = setUp();
    store.add(newCheck('hooked', 'default', ['a@x.test'], T0, undefined, CALLBACK));
    store.add(newCheck('plain', 'default', ['a@x.test'], T0));
    await checks.settle(T0 + ACTIVE_MS + 1);
    expect(store.log).toEqual(['queued hooked', 'settled hooked', 'settled plain']);
    const delivery = queued.get('hooked');
    expect(delivery?.callbackUrl).toBe(CALLBACK.callbackUrl);
    expect(JSON.parse(delivery?.payload ?? '{}')).toMatchObject({ check_id: 'hooked', status: 'timeout' });
    expect(told).toEqual(['hooked']);
  });

  it('queues the webhook with the write that completes the check, not with the ones before it', async () => {
    const { store, queued, told, checks } = setUp();
    store.add(newCheck('two', 'default', ['a@x.test', 'b@x.test'], T0, undefined, CALLBACK));
    await checks.recordResult('two', 'a@x.test', 'primary', T0 + 1);
    expect(queued.size).toBe(0);
    expect(
      await checks.recordResults('two', [{ email: 'b@x.test', category: 'primary', details: {} }], T0 + 2),
    ).toBe(true);
    expect(JSON.parse(queued.get('two')?.payload ?? '{}')).toMatchObject({ status: 'complete', received: 2 });
    expect(told).toEqual(['two']);
    // A repeat writes nothing and queues nothing more.
    expect(await checks.recordResult('two', 'b@x.test', 'primary', T0 + 3)).toBe('already-recorded');
    expect(told).toEqual(['two']);
  });

  it('a failed queue on completion loses nothing: settling queues it again before settling', async () => {
    const { store, checks } = setUp();
    store.add(newCheck('flaky', 'default', ['a@x.test'], T0, undefined, CALLBACK));
    let fail = true;
    const delivered: string[] = [];
    const flaky = settleCheck({
      store,
      queue: {
        enqueue: async (delivery) => {
          if (fail) throw new Error('throttled');
          delivered.push(delivery.checkId);
        },
      },
    });
    expect(await flaky.recordResult('flaky', 'a@x.test', 'primary', T0 + 1)).toBe('recorded');
    expect(delivered).toEqual([]);
    fail = false;
    expect((await flaky.settle(T0 + 2)).map((check) => check.checkId)).toEqual(['flaky']);
    expect(delivered).toEqual(['flaky']);
    expect(await checks.settle(T0 + 3)).toEqual([]);
  });
});

describe('items stored before the callback URL kept one name', () => {
  const check = newCheck('c1', 'default', ['a@x.test'], T0, undefined, CALLBACK);
  const sortKey = TABLE_SCHEMA.openChecks.sortKey;

  it('marks a check with a callback URL in its index key, and reads the old mark alike', () => {
    expect(hasCallbackUrlMark(openCheckKey(T0, 'c1', true)[sortKey])).toBe(true);
    expect(hasCallbackUrlMark(openCheckKey(T0, 'c1', false)[sortKey])).toBe(false);
    expect(hasCallbackUrlMark(`${String(openCheckKey(T0, 'c1')[sortKey])}#webhook`)).toBe(true);
  });

  it("reads a check's callback stored as url, and a delivery's URL stored as url", () => {
    const old = {
      pk: 'CHECK#c1',
      checkId: 'c1',
      scope: 'default',
      createdAt: T0,
      received: 0,
      emails: ['a@x.test'],
    };
    const { callbackUrl, ...rest } = CALLBACK;
    expect(checkFromItem({ ...old, callback: { url: callbackUrl, ...rest } }).callback).toEqual(CALLBACK);
    expect(checkFromItem({ ...old, callback: CALLBACK }).callback).toEqual(CALLBACK);
    expect(checkFromItem({ ...old, callback: { keyId: 'key1' } }).callback).toBeUndefined();

    const item = deliveryToItem(newDelivery(check, CALLBACK, T0));
    expect(item.callbackUrl).toBe(callbackUrl);
    expect(deliveryFromItem(item).callbackUrl).toBe(callbackUrl);
    const { callbackUrl: _, ...stored } = item;
    expect(deliveryFromItem({ ...stored, url: callbackUrl }).callbackUrl).toBe(callbackUrl);
  });
});
