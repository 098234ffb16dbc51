// Access and abuse over real HTTP against the local server and a real dynalite: no key reads another scope's check,
// keys are stored only as hashes, a revoked key stops within the auth cache's lifetime, and the per-key limits on
// start answer 429 with Retry-After while other keys go on unaffected.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler as createFallback } from '../../functions/fallback';
import { createHandler as createGet } from '../../functions/get';
import { createHandler as createStart } from '../../functions/start';
import { DynamoKeyUsage } from '../../shared/adapters/dynamo/DynamoKeyUsage';
import { hashApiKey, keyIdOf, newApiKeyRecord } from '../../shared/domain/apiKey';
import {
  AuthCache,
  DEFAULT_AUTH_CACHE_TTL_MS,
  DEFAULT_UNKNOWN_KEY_TTL_MS,
} from '../../shared/domain/authCache';
import { type KeyLimits, RECHECK_MS } from '../../shared/domain/keyLimits';
import { ACTIVE_MS } from '../../shared/domain/limits';
import { createLocalServer } from '../../shared/local/httpAdapter';
import { ManualClock } from '../support/manualClock';
import { validateResponse } from '../support/openapi';
import { rawRequest } from '../support/rawRequest';
import { type ApiResponse, startTestService, type TestService } from '../support/testService';

const START = '/api/spam-check/start';
const get = (id: string) => `/api/spam-check/${id}`;
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const checkIdOf = (response: ApiResponse) => (response.body as { check_id: string }).check_id;

type Service = TestService & { clock: ManualClock };

/**
 * Another API instance over the same table, as a second Lambda container would be: its own auth cache and its own
 * counter adapter, sharing nothing with the first but DynamoDB.
 */
const startInstance = async (service: Service, limits: KeyLimits) => {
  const deps = {
    ...service.deps,
    authCache: new AuthCache(30_000),
    keyLimits: { usage: new DynamoKeyUsage(service.client, service.table), limits },
  };
  const server = createLocalServer(
    { start: createStart(deps), get: createGet(deps), fallback: createFallback(deps) },
    service.deps.log,
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    start: async (key: string) => {
      const response = await rawRequest(baseUrl, 'POST', START, bearer(key));
      const body = JSON.parse(response.text) as unknown;
      validateResponse('POST', START, response.status, body, response.headers);
      return response.status;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** `count` starts at once with one key, spread over three instances; the statuses that came back. */
const concurrentStarts = async (service: Service, limits: KeyLimits, key: string, count: number) => {
  const instances = [await startInstance(service, limits), await startInstance(service, limits)];
  try {
    const starters = [
      async (k: string) => (await service.request('POST', START, bearer(k))).status,
      ...instances.map((instance) => instance.start),
    ];
    return await Promise.all(
      Array.from({ length: count }, (_, index) =>
        (starters[index % starters.length] as (typeof starters)[0])(key),
      ),
    );
  } finally {
    for (const instance of instances) await instance.close();
  }
};

const expectTooMany = (response: ApiResponse, kind: 'started with' | 'in flight for', seconds: number) => {
  expect(response.status).toBe(429);
  expect(response.headers['retry-after']).toBe(String(seconds));
  expect(response.body).toEqual({
    detail: `Too many checks ${kind} this API key; retry after ${seconds} seconds`,
  });
};

describe('Broken object-level authorization', () => {
  let service: Service;
  beforeAll(async () => {
    service = await startTestService();
    await service.addAccounts(
      { email: 'a1@mail.test', scope: 'alpha' },
      { email: 'b1@mail.test', scope: 'beta' },
    );
  });
  afterAll(async () => service.close());

  it('a key of scope A never reads a check of scope B: 404, byte for byte the answer to an unknown id', async () => {
    const alpha = await service.issueKey('alpha');
    const beta = await service.issueKey('beta');
    const alphaChecks: string[] = [];
    const betaChecks: string[] = [];
    for (let index = 0; index < 5; index++) {
      alphaChecks.push(checkIdOf(await service.request('POST', START, bearer(alpha))));
      betaChecks.push(checkIdOf(await service.request('POST', START, bearer(beta))));
    }
    const unknown = await service.request('GET', get('abcdefghijklmnopqrst'), bearer(alpha));
    expect(unknown.status).toBe(404);
    const comparable = (response: ApiResponse) => ({
      status: response.status,
      text: response.text,
      contentType: response.headers['content-type'],
      cacheControl: response.headers['cache-control'],
      headerNames: Object.keys(response.headers)
        .filter((name) => name !== 'date')
        .sort(),
    });
    for (const [key, theirs, own] of [
      [alpha, betaChecks, alphaChecks],
      [beta, alphaChecks, betaChecks],
    ] as const) {
      for (const id of theirs) {
        expect(comparable(await service.request('GET', get(id), bearer(key)))).toEqual(comparable(unknown));
      }
      for (const id of own) expect((await service.request('GET', get(id), bearer(key))).status).toBe(200);
    }
  });
});

describe('API keys', () => {
  let service: Service;
  beforeAll(async () => {
    service = await startTestService();
    await service.addAccounts({ email: 'inbox@mail.test', scope: 'default' });
  });
  afterAll(async () => service.close());

  it('are stored only as hashes: no table item holds a key in plaintext', async () => {
    const keys = [await service.issueKey('default'), await service.issueKey('other')];
    for (const key of keys) expect((await service.request('POST', START, bearer(key))).status).not.toBe(401);
    const { Items = [] } = await service.client.send(new ScanCommand({ TableName: service.table }));
    const raw = JSON.stringify(Items);
    const keyItems = Items.filter((item) => item.type === 'apikey');
    expect(keyItems).toHaveLength(2);
    expect(keyItems.map((item) => item.keyHash).sort()).toEqual(keys.map(hashApiKey).sort());
    for (const key of keys) {
      expect(raw).not.toContain(key);
      // Nor its random part alone, nor a base64 form of it.
      expect(raw).not.toContain(key.slice(4));
      expect(raw).not.toContain(Buffer.from(key).toString('base64'));
    }
  });

  it('a revoked key keeps working only within the auth cache lifetime, then gives 401', async () => {
    service.clock.set(T0);
    const doomed = await service.issueKey('default');
    const id = checkIdOf(await service.request('POST', START, bearer(doomed)));
    expect(await service.deps.keys.revoke(keyIdOf(hashApiKey(doomed)))).toBe(true);
    service.clock.advance(DEFAULT_AUTH_CACHE_TTL_MS - 1);
    expect((await service.request('GET', get(id), bearer(doomed))).status).toBe(200);
    service.clock.advance(1);
    for (const response of [
      await service.request('GET', get(id), bearer(doomed)),
      await service.request('POST', START, bearer(doomed)),
    ]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ detail: 'Invalid or missing API key' });
    }
  });

  it('an expired key stops at its expiry even while cached', async () => {
    service.clock.set(T0);
    const expiring = await service.issueKey('default', { expiresAt: T0 + 10_000 });
    expect((await service.request('POST', START, bearer(expiring))).status).toBe(200);
    service.clock.advance(10_000);
    expect((await service.request('POST', START, bearer(expiring))).status).toBe(401);
  });

  it('a key issued a moment ago works at once if never tried, else within the unknown-key lifetime', async () => {
    const fresh = 'a-key-chosen-by-the-operator-0002';
    await service.deps.keys.create(
      newApiKeyRecord(fresh, { scope: 'default', label: 'new' }, service.clock.now()),
    );
    expect((await service.request('POST', START, bearer(fresh))).status).toBe(200);

    const key = 'a-key-chosen-by-the-operator-0001';
    expect((await service.request('POST', START, bearer(key))).status).toBe(401);
    await service.deps.keys.create(
      newApiKeyRecord(key, { scope: 'default', label: 'late' }, service.clock.now()),
    );
    service.clock.advance(DEFAULT_UNKNOWN_KEY_TTL_MS - 1);
    expect((await service.request('POST', START, bearer(key))).status).toBe(401);
    service.clock.advance(1);
    expect((await service.request('POST', START, bearer(key))).status).toBe(200);
  });
});

describe('Per-key rate limit on start', () => {
  const LIMIT = 5;
  let service: Service;
  beforeAll(async () => {
    service = await startTestService(new ManualClock(T0), {
      keyLimits: { startsPerMinute: LIMIT, maxInFlight: 0 },
    });
    await service.addAccounts({ email: 'inbox@mail.test', scope: 'default' });
  });
  afterAll(async () => service.close());

  it('answers 429 with Retry-After and {detail} past the limit, and other keys are unaffected', async () => {
    service.clock.set(T0 + 20_500);
    const busy = await service.issueKey('default');
    const other = await service.issueKey('default');
    for (let index = 0; index < LIMIT; index++) {
      expect((await service.request('POST', START, bearer(busy))).status).toBe(200);
    }
    // 12:00:20.5: the minute ends in 39.5 s, so 40 whole seconds.
    expectTooMany(await service.request('POST', START, bearer(busy)), 'started with', 40);
    expect((await service.request('POST', START, bearer(other))).status).toBe(200);
    // Get is not limited.
    const id = checkIdOf(await service.request('POST', START, bearer(other)));
    expect((await service.request('GET', get(id), bearer(busy))).status).toBe(200);

    service.clock.advance(39_499);
    expectTooMany(await service.request('POST', START, bearer(busy)), 'started with', 1);
    service.clock.advance(1);
    expect((await service.request('POST', START, bearer(busy))).status).toBe(200);
  });

  it('holds across three instances under concurrent starts: exactly the limit succeeds, round after round', async () => {
    for (let round = 0; round < 5; round++) {
      service.clock.set(T0 + (10 + round) * 60_000);
      const key = await service.issueKey('default');
      const statuses = await concurrentStarts(
        service,
        { startsPerMinute: LIMIT, maxInFlight: 0 },
        key,
        12 * LIMIT,
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(LIMIT);
      expect(statuses.filter((status) => status === 429)).toHaveLength(11 * LIMIT);
    }
  });
});

describe('Per-key cap on checks in flight', () => {
  const CAP = 3;
  let service: Service;
  beforeAll(async () => {
    service = await startTestService(new ManualClock(T0), {
      keyLimits: { startsPerMinute: 0, maxInFlight: CAP },
    });
    await service.addAccounts(
      { email: 'inbox@mail.test', scope: 'default' },
      { email: 'junk@mail.test', scope: 'default' },
    );
  });
  afterAll(async () => service.close());

  const complete = async (checkId: string) => {
    for (const email of ['inbox@mail.test', 'junk@mail.test']) {
      expect(await service.openChecks.recordResult(checkId, email, 'primary', service.clock.now())).toBe(
        'recorded',
      );
    }
  };

  it('answers 429 with Retry-After at the cap; a completed or timed-out check frees its slot', async () => {
    service.clock.set(T0);
    const busy = await service.issueKey('default');
    const other = await service.issueKey('default');
    const ids: string[] = [];
    for (let index = 0; index < CAP; index++) {
      ids.push(checkIdOf(await service.request('POST', START, bearer(busy))));
      service.clock.advance(1000);
    }
    // The oldest started 3 s ago and times out 5 minutes after its start.
    expectTooMany(
      await service.request('POST', START, bearer(busy)),
      'in flight for',
      ACTIVE_MS / 1000 - 3 + 1,
    );
    expect((await service.request('POST', START, bearer(other))).status).toBe(200);

    // A check that is complete no longer counts, once the key's checks are read again.
    await complete(ids[1] as string);
    expect((await service.request('POST', START, bearer(busy))).status).toBe(429);
    service.clock.advance(RECHECK_MS);
    ids.push(checkIdOf(await service.request('POST', START, bearer(busy))));
    expect((await service.request('POST', START, bearer(busy))).status).toBe(429);

    // Nor does one that timed out.
    service.clock.set(T0 + ACTIVE_MS + 1);
    expect((await service.request('POST', START, bearer(busy))).status).toBe(200);
    expect((await service.request('POST', START, bearer(busy))).status).toBe(429);
  });

  it('holds across three instances under concurrent starts: exactly the cap succeeds, round after round', async () => {
    for (let round = 0; round < 5; round++) {
      service.clock.set(T0 + (60 + round) * 60_000);
      const key = await service.issueKey('default');
      const statuses = await concurrentStarts(service, { startsPerMinute: 0, maxInFlight: CAP }, key, 60);
      expect(statuses.filter((status) => status === 200)).toHaveLength(CAP);
      expect(statuses.filter((status) => status === 429)).toHaveLength(60 - CAP);
    }
  });
});
