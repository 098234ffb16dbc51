// Fair limits over real HTTP against the local server and a real dynalite, on an injected clock: the per-key limit on
// get and the report, the per-scope ceiling on checks in flight over all of a scope's keys, and made-up keys read
// from the store at most once per key within the unknown-key lifetime. Every response is checked against openapi.yaml.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey, keyIdOf, newApiKeyRecord } from '../../shared/domain/apiKey';
import { DEFAULT_UNKNOWN_KEY_TTL_MS, DEFAULT_UNKNOWN_READS_PER_SECOND } from '../../shared/domain/authCache';
import { RECHECK_MS } from '../../shared/domain/keyLimits';
import { ManualClock } from '../support/manualClock';
import { type ApiResponse, startTestService, type TestService } from '../support/testService';

const START = '/api/spam-check/start';
const get = (id: string) => `/api/spam-check/${id}`;
const report = (id: string) => `/api/spam-check/${id}/report`;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const checkIdOf = (response: ApiResponse) => (response.body as { check_id: string }).check_id;

type Service = TestService & { clock: ManualClock };

const expect429 = (response: ApiResponse, detail: string, seconds: number) => {
  expect(response.status).toBe(429);
  expect(response.headers['retry-after']).toBe(String(seconds));
  expect(response.body).toEqual({ detail: `${detail}; retry after ${seconds} seconds` });
};

describe('Per-key limit on get and the report', () => {
  const RATE = 2;
  const BURST = 4;
  let service: Service;
  beforeAll(async () => {
    service = await startTestService(new ManualClock(T0), { readLimits: { perSecond: RATE, burst: BURST } });
    await service.addAccounts({ email: 'inbox@mail.test', scope: 'default' });
  });
  afterAll(async () => service.close());

  it('answers 429 with Retry-After past the burst, get and report counting together; other keys go on', async () => {
    service.clock.set(T0);
    const busy = await service.issueKey('default');
    const other = await service.issueKey('default');
    const id = checkIdOf(await service.request('POST', START, bearer(busy)));
    for (let index = 0; index < BURST; index++) {
      const path = index % 2 === 0 ? get(id) : report(id);
      expect((await service.request('GET', path, bearer(busy))).status).toBe(200);
    }
    const detail = 'Too many requests with this API key';
    expect429(await service.request('GET', get(id), bearer(busy)), detail, 1);
    expect429(await service.request('GET', report(id), bearer(busy)), detail, 1);
    // Unknown ids count too: a flood of made-up ids is no way around the limit.
    expect429(await service.request('GET', get('abcdefghijklmnopqrst'), bearer(busy)), detail, 1);
    expect((await service.request('GET', get(id), bearer(other))).status).toBe(200);
    // Start is not a read.
    expect((await service.request('POST', START, bearer(busy))).status).toBe(200);

    // One read comes back every 1/RATE s.
    service.clock.advance(1000 / RATE - 1);
    expect((await service.request('GET', get(id), bearer(busy))).status).toBe(429);
    service.clock.advance(1);
    expect((await service.request('GET', get(id), bearer(busy))).status).toBe(200);
    expect((await service.request('GET', get(id), bearer(busy))).status).toBe(429);
  });
});

describe('Per-scope ceiling on checks in flight', () => {
  const KEY_CAP = 2;
  const SCOPE_CAP = 3;
  let service: Service;
  beforeAll(async () => {
    service = await startTestService(new ManualClock(T0), {
      keyLimits: { startsPerMinute: 0, maxInFlight: KEY_CAP, maxInFlightPerScope: SCOPE_CAP },
    });
    await service.addAccounts(
      { email: 'inbox@mail.test', scope: 'shared' },
      { email: 'other@mail.test', scope: 'elsewhere' },
    );
  });
  afterAll(async () => service.close());

  it('holds over all of a scope’s keys however many it has, gives a refused key its slot back, and frees on completion', async () => {
    service.clock.set(T0);
    const keys = [await service.issueKey('shared'), await service.issueKey('shared')];
    const fresh = await service.issueKey('shared');
    const elsewhere = await service.issueKey('elsewhere');
    const first = checkIdOf(await service.request('POST', START, bearer(keys[0] as string)));
    service.clock.advance(1000);
    expect((await service.request('POST', START, bearer(keys[0] as string))).status).toBe(200);
    expect((await service.request('POST', START, bearer(keys[1] as string))).status).toBe(200);
    // Every key of the scope is below its own cap; the scope is at its ceiling. The oldest check started 1 s ago.
    const detail = 'Too many checks in flight for this scope';
    for (const key of [keys[1] as string, fresh]) {
      expect429(await service.request('POST', START, bearer(key)), detail, 300 - 1 + 1);
    }
    expect((await service.request('POST', START, bearer(elsewhere))).status).toBe(200);
    // The refusals took no key slot: each key's own set holds only the checks it started.
    const keySet = async (key: string) => {
      const usage = service.deps.keyLimits?.usage;
      if (!usage) throw new Error('the service has no key limits');
      return (await usage.inFlight({ keyId: keyIdOf(hashApiKey(key)) })).entries.length;
    };
    expect(await keySet(keys[1] as string)).toBe(1);
    expect(await keySet(fresh)).toBe(0);

    // A completed check frees its scope slot once the scope's checks are read again.
    expect(
      await service.openChecks.recordResult(first, 'inbox@mail.test', 'primary', service.clock.now()),
    ).toBe('recorded');
    service.clock.advance(RECHECK_MS);
    expect((await service.request('POST', START, bearer(fresh))).status).toBe(200);
    expect((await service.request('POST', START, bearer(fresh))).status).toBe(429);
  });

  it('holds under concurrent starts by many keys of one scope: exactly the ceiling succeeds', async () => {
    for (let round = 0; round < 2; round++) {
      service.clock.set(T0 + (60 + round) * 60_000);
      const scope = `crowd-${round}`;
      await service.deps.accounts.put({
        email: `c${round}@mail.test`,
        provider: 'imap',
        scope,
        active: true,
      });
      const keys = await Promise.all(Array.from({ length: 10 }, () => service.issueKey(scope)));
      const statuses = await Promise.all(
        Array.from({ length: 20 }, async (_, index) => {
          const response = await service.request('POST', START, bearer(keys[index % keys.length] as string));
          return response.status;
        }),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(SCOPE_CAP);
      expect(statuses.filter((status) => status === 429)).toHaveLength(20 - SCOPE_CAP);
    }
  });
});

describe('Made-up keys', () => {
  let service: Service;
  let storeReads: number;
  beforeAll(async () => {
    service = await startTestService(new ManualClock(T0));
    await service.addAccounts({ email: 'inbox@mail.test', scope: 'default' });
    const keys = service.deps.keys;
    const findByHash = keys.findByHash.bind(keys);
    keys.findByHash = async (hash) => {
      storeReads++;
      return findByHash(hash);
    };
  });
  afterAll(async () => service.close());

  it('read the store at most once per key within the unknown-key lifetime and the read budget; a new key works after it', async () => {
    service.clock.set(T0);
    storeReads = 0;
    const madeUp = Array.from(
      { length: 20 },
      (_, index) => `ipk_made-up-key-${String(index).padStart(4, '0')}`,
    );
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        madeUp.map(async (key) => {
          const response = await service.request('GET', get('abcdefghijklmnopqrst'), bearer(key));
          expect(response.status).toBe(401);
        }),
      );
      service.clock.advance(DEFAULT_UNKNOWN_KEY_TTL_MS / 10);
    }
    // One read each while the cache's budget of reads lasts; the rest are judged against the list of keys.
    expect(storeReads).toBe(Math.min(madeUp.length, DEFAULT_UNKNOWN_READS_PER_SECOND));

    // One of them issued now: it answers 401 until the unknown-key lifetime has passed, then works.
    const late = madeUp[0] as string;
    await service.deps.keys.create(
      newApiKeyRecord(late, { scope: 'default', label: 'late' }, service.clock.now()),
    );
    service.clock.set(T0 + DEFAULT_UNKNOWN_KEY_TTL_MS);
    expect((await service.request('POST', START, bearer(late))).status).toBe(200);
  });
});
