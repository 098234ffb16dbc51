// The local stand-in for DynamoDB's TTL: under `npm start` dynalite deletes nothing by itself, so without it the
// table kept every check ever started (the soak's memory grew with it). Time moves on a manual clock.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETENTION_MS } from '../../shared/domain/limits';
import { purgeExpired } from '../../shared/local/expiry';
import { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

describe('purgeExpired on dynalite', () => {
  let service: TestService & { clock: ManualClock };
  let key: string;
  beforeAll(async () => {
    service = await startTestService(new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0)), {
      store: 'dynalite',
      keyLimits: { startsPerMinute: 60, maxInFlight: 100 },
    });
    await service.addAccounts({ email: 'a@mail.test' }, { email: 'b@mail.test' });
    key = await service.issueKey('default');
  });
  afterAll(async () => service.close());

  const start = async () => {
    const response = await service.request('POST', '/api/spam-check/start', {
      authorization: `Bearer ${key}`,
    });
    expect(response.status).toBe(200);
    return (response.body as { check_id: string }).check_id;
  };
  const items = async () =>
    (await service.client.send(new ScanCommand({ TableName: service.table, ConsistentRead: true }))).Items ??
    [];
  const typesOf = (list: Record<string, unknown>[]) => list.map((item) => String(item.type)).sort();
  const get = (id: string) =>
    service.request('GET', `/api/spam-check/${id}`, { authorization: `Bearer ${key}` });

  it('deletes what is past its TTL and only that: old checks and counters go, accounts, keys and new checks stay', async () => {
    const old = [await start(), await start()];
    service.clock.advance(RETENTION_MS - 60_000);
    const recent = await start();
    const kept = ['account', 'account', 'apikey', 'check', 'check', 'check', 'inflight', 'starts'];
    // Two start counters (two minutes), one of them past its window.
    expect(typesOf(await items())).toEqual([...kept, 'starts']);

    // Only the start counter of the first minute has expired (two minutes after its window began).
    expect(await purgeExpired(service.client, service.table, service.clock.now())).toBe(1);
    expect(typesOf(await items())).toEqual(kept);

    // The two old checks are past retention; the in-flight set was renewed by the last start, so it stays.
    service.clock.advance(61_000);
    expect(await purgeExpired(service.client, service.table, service.clock.now())).toBe(2);
    const after = await items();
    expect(typesOf(after)).toEqual(['account', 'account', 'apikey', 'check', 'inflight', 'starts']);
    expect(after.find((item) => item.type === 'check')?.checkId).toBe(recent);
    for (const id of old) expect((await get(id)).status).toBe(404);
    expect((await get(recent)).status).toBe(200);
  });
});
