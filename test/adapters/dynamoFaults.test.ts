// DynamoDB throttling through the real API: the SDK client retries a throttled request (DYNAMO_TIMEOUTS.maxAttempts
// in all), so start and get still succeed; throttling past the last attempt is a 503 `{detail}` with Retry-After, and a cold
// auth lookup that is throttled is retried the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DYNAMO_TIMEOUTS } from '../../shared/adapters/dynamo/client';
import type { ThrottleError } from '../support/dynamoProxy';
import { ManualClock } from '../support/manualClock';
import { expectUnavailable, type ProxiedService, startProxiedService } from '../support/proxiedService';

const SCOPE = 'throttled';
const START = '/api/spam-check/start';
const ERRORS: ThrottleError[] = ['ThrottlingException', 'ProvisionedThroughputExceededException'];
const ATTEMPTS = DYNAMO_TIMEOUTS.maxAttempts;

let service: ProxiedService;
let key: string;

beforeAll(async () => {
  service = await startProxiedService(new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0)));
  await service.addAccount('alpha@mail.test', SCOPE);
  await service.addAccount('beta@mail.test', SCOPE);
  key = await service.issueKey(SCOPE);
  // Warms the auth cache, so the throttled request of each case below is the one the case is about.
  expect((await service.request('POST', START, key)).status).toBe(200);
});
afterAll(async () => service?.close());

/** What the proxy saw during `act`: requests per operation, and how many it throttled and forwarded. */
const observe = async <T>(act: () => Promise<T>) => {
  const { stats } = service.proxy;
  const before = { ...stats, byOperation: { ...stats.byOperation } };
  const result = await act();
  const operations = Object.fromEntries(
    Object.entries(stats.byOperation)
      .map(([name, count]) => [name, count - (before.byOperation[name] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
  return {
    result,
    operations,
    throttled: stats.throttled - before.throttled,
    forwarded: stats.forwarded - before.forwarded,
  };
};

describe.each(ERRORS)('DynamoDB answering %s', (error) => {
  it(`start and get succeed when the first ${ATTEMPTS - 1} attempts are throttled`, async () => {
    service.proxy.throttle(ATTEMPTS - 1, error);
    // Start's first call lists the scope's accounts (Query): throttled twice, then answered.
    const start = await observe(() => service.request('POST', START, key));
    expect(start.result.status).toBe(200);
    expect(start.throttled).toBe(ATTEMPTS - 1);
    // Then it reads the shard layout (GetItem) and writes the check (PutItem).
    expect(start.operations).toEqual({ Query: ATTEMPTS, GetItem: 1, PutItem: 1 });
    const { check_id } = start.result.body as { check_id: string };

    service.proxy.throttle(ATTEMPTS - 1, error);
    const get = await observe(() => service.request('GET', `/api/spam-check/${check_id}`, key));
    expect(get.result.status).toBe(200);
    expect(get.result.body).toMatchObject({ check_id, status: 'pending', received: 0, total: 2 });
    expect(get.throttled).toBe(ATTEMPTS - 1);
    expect(get.operations).toEqual({ GetItem: ATTEMPTS });
    console.info(
      JSON.stringify({
        test: 'DynamoDB throttling, retried',
        error,
        throttledPerRequest: ATTEMPTS - 1,
        start: { status: start.result.status, ms: start.result.ms, operations: start.operations },
        get: { status: get.result.status, ms: get.result.ms, operations: get.operations },
      }),
    );
  });

  it(`throttling on all ${ATTEMPTS} attempts answers 503 with Retry-After, and the next request succeeds`, async () => {
    const loggedBefore = service.logs.length;
    service.proxy.throttle(ATTEMPTS, error);
    const start = await observe(() => service.request('POST', START, key));
    expectUnavailable(start.result, service.proxy, `start throttled ${ATTEMPTS} times`);
    // Every attempt was made and none beyond: the request was retried, then given up.
    expect(start.operations).toEqual({ Query: ATTEMPTS });
    expect(start.throttled).toBe(ATTEMPTS);
    expect(start.forwarded).toBe(0);
    const after = await service.request('POST', START, key);
    expect(after.status).toBe(200);
    const { check_id } = after.body as { check_id: string };

    service.proxy.throttle(ATTEMPTS, error);
    const get = await observe(() => service.request('GET', `/api/spam-check/${check_id}`, key));
    expectUnavailable(get.result, service.proxy, `get throttled ${ATTEMPTS} times`);
    expect(get.operations).toEqual({ GetItem: ATTEMPTS });
    expect(get.throttled).toBe(ATTEMPTS);
    expect((await service.request('GET', `/api/spam-check/${check_id}`, key)).status).toBe(200);
    // The cause is logged for the operator (a warning naming it), not returned to the client.
    const outages = service.logs
      .slice(loggedBefore)
      .filter((line) => line.level === 'warn' && line.message === 'store unavailable');
    expect(outages.map((line) => line.reason)).toEqual([error, error]);
    expect(service.logs.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('retries a throttled API key lookup (auth cache cold), then serves the request', async () => {
    const fresh = await service.issueKey(SCOPE);
    service.proxy.throttle(ATTEMPTS - 1, error);
    const start = await observe(() => service.request('POST', START, fresh));
    expect(start.result.status).toBe(200);
    // The key (ATTEMPTS GetItems), the scope's accounts, the shard layout, the check.
    expect(start.operations).toEqual({ GetItem: ATTEMPTS + 1, Query: 1, PutItem: 1 });

    const other = await service.issueKey(SCOPE);
    service.proxy.throttle(ATTEMPTS, error);
    const refused = await observe(() => service.request('POST', START, other));
    // DynamoDB could not say whether the key is valid: that is the service's failure, never the client's 401.
    expectUnavailable(refused.result, service.proxy, 'key lookup throttled on every attempt');
    expect(refused.operations).toEqual({ GetItem: ATTEMPTS });
  });
});
