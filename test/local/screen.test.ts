// Refusals answered before the handler pipeline: npm start's HTTP adapter answers a made-up key and a key past its
// read limit from memory, before it builds an event, and on Lambda the handlers' first middleware refuses a read past
// the limit before the handler runs; either way with the very response the pipeline gives, and the store untouched.
// A key in the issued shape whose checksum fails is refused without even its first store read.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../shared/composition/apiDeps';
import { generateApiKey, hashApiKey, keyIdOf, newApiKeyRecord } from '../../shared/domain/apiKey';
import { AuthCache } from '../../shared/domain/authCache';
import type { ApiKeyStore, CheckStore } from '../../shared/domain/ports';
import { ReadLimiter } from '../../shared/domain/readLimits';
import { authenticatedApi } from '../../shared/http/apiHandler';
import {
  createFallbackHandler,
  createGetHandler,
  createScreen,
  createStartHandler,
} from '../../shared/http/handlers';
import { createLocalServer, type HandlerTable } from '../../shared/local/httpAdapter';
import { createLogger } from '../../shared/log';
import { ManualClock } from '../support/manualClock';

const log = createLogger('test', 'error', () => undefined);
const KEY = generateApiKey();
const MADE_UP = 'ipk_made-up-key-for-the-screen-0000';
const CHECK_PATH = '/api/spam-check/abcdefghijklmnopqrst';
const BURST = 2;

/** The API over stores that count what reaches them, and the handlers wrapped to count their calls. */
const setUp = () => {
  const clock = new ManualClock();
  const record = newApiKeyRecord(KEY, { scope: 'default', label: 'screen' }, clock.now());
  const reads = { keys: 0, checks: 0 };
  const keys = {
    findByHash: async (hash: string) => {
      reads.keys++;
      return hash === record.keyHash ? record : undefined;
    },
  } as unknown as ApiKeyStore;
  const checks = {
    get: async () => {
      reads.checks++;
      return undefined;
    },
  } as unknown as CheckStore;
  const deps = {
    keys,
    checks,
    clock,
    log,
    authCache: new AuthCache(30_000),
    readLimiter: new ReadLimiter({ perSecond: 1, burst: BURST }),
  } as unknown as ApiDeps;
  const calls = { start: 0, get: 0, fallback: 0 };
  const built = {
    start: createStartHandler(deps),
    get: createGetHandler(deps),
    fallback: createFallbackHandler(deps),
  };
  const handlers: HandlerTable = {
    start: (event, context) => {
      calls.start++;
      return built.start(event, context);
    },
    get: (event, context) => {
      calls.get++;
      return built.get(event, context);
    },
    fallback: (event, context) => {
      calls.fallback++;
      return built.fallback(event, context);
    },
  };
  return { deps, clock, reads, calls, handlers };
};

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const serve = async (handlers: HandlerTable, deps?: ApiDeps) => {
  const server = createLocalServer(handlers, log, deps ? { screen: createScreen(deps) } : {});
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (key: string, path = CHECK_PATH, method = 'GET') => {
    const response = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.text(),
    };
  };
};

/** What a response says, apart from the headers every HTTP response carries anyway. */
const answerOf = ({ status, headers, body }: Awaited<ReturnType<Awaited<ReturnType<typeof serve>>>>) => {
  const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...rest } = headers;
  return { status, headers: rest, body };
};

describe("npm start's HTTP adapter with the screen", () => {
  it('answers a made-up key from memory after its one store read, never calling a handler again', async () => {
    const { deps, reads, calls, handlers } = setUp();
    const request = await serve(handlers, deps);
    const first = await request(MADE_UP);
    expect(first.status).toBe(401);
    expect(calls.get).toBe(1);
    for (let index = 0; index < 20; index++) {
      expect(answerOf(await request(MADE_UP))).toEqual(answerOf(first));
      expect(answerOf(await request(MADE_UP, '/api/spam-check/start', 'POST'))).toEqual(answerOf(first));
    }
    expect({ calls, reads }).toEqual({
      calls: { start: 0, get: 1, fallback: 0 },
      reads: { keys: 1, checks: 0 },
    });
    // A malformed header never reaches a handler either; an unknown path is still the fallback's 404.
    expect((await request('not a key')).status).toBe(401);
    expect((await request(MADE_UP, '/nowhere')).status).toBe(404);
    expect(calls).toEqual({ start: 0, get: 1, fallback: 1 });
  });

  it('answers a key past its read limit with the pipeline’s own 429 and Retry-After, never calling get', async () => {
    const { deps, clock, reads, calls, handlers } = setUp();
    const request = await serve(handlers, deps);
    // The same handlers over the same limits, unscreened: the pipeline's own answer to the same refusal.
    const unscreened = await serve(handlers);
    for (let index = 0; index < BURST; index++) expect((await request(KEY)).status).toBe(404);
    const fromPipeline = await unscreened(KEY);
    expect(fromPipeline.status).toBe(429);
    expect(fromPipeline.headers['retry-after']).toBe('1');
    expect(calls.get).toBe(BURST + 1);
    for (let index = 0; index < 20; index++) {
      expect(answerOf(await request(KEY))).toEqual(answerOf(fromPipeline));
      expect((await request(KEY, `${CHECK_PATH}/report`)).status).toBe(429);
    }
    expect(calls.get).toBe(BURST + 1);
    expect(reads).toEqual({ keys: 1, checks: BURST });
    // Start is not a read, and the bucket refills: both go through to their handlers as ever.
    expect((await request(KEY, '/api/spam-check/start', 'POST')).status).not.toBe(429);
    expect(calls.start).toBe(1);
    clock.advance(1000);
    expect((await request(KEY)).status).toBe(404);
    expect(calls.get).toBe(BURST + 2);
  });

  it('answers a key in the issued shape with a wrong checksum without even one store read or handler call', async () => {
    const { deps, reads, calls, handlers } = setUp();
    const request = await serve(handlers, deps);
    const forged = `${generateApiKey().slice(0, -6)}AAAAAA`;
    const answers = new Set<string>();
    for (let index = 0; index < 20; index++) {
      // Twenty different made-up keys: none is remembered, each would cost a store read without the checksum.
      const response = await request(`${forged.slice(0, -1)}${String.fromCharCode(66 + index)}`);
      expect(response.status).toBe(401);
      answers.add(JSON.stringify(answerOf(response)));
    }
    expect(answers.size).toBe(1);
    expect({ calls, reads }).toEqual({
      calls: { start: 0, get: 0, fallback: 0 },
      reads: { keys: 0, checks: 0 },
    });
  });

  it('without the screen, every refusal goes through a handler (what the screen saves)', async () => {
    const { calls, handlers } = setUp();
    const request = await serve(handlers);
    for (let index = 0; index < 5; index++) expect((await request(MADE_UP)).status).toBe(401);
    expect(calls.get).toBe(5);
  });
});

describe('the handlers on Lambda', () => {
  it('refuse a read past the key’s limit in their first middleware, before the handler runs', async () => {
    const { deps, clock } = setUp();
    let ran = 0;
    const action = async () => {
      ran++;
      return { ok: true };
    };
    const reading = authenticatedApi(deps, action, { reads: true });
    const starting = authenticatedApi(deps, action, { reads: false });
    const event = {
      headers: { authorization: `Bearer ${KEY}` },
      requestContext: { requestId: 'r' },
    } as unknown as APIGatewayProxyEventV2;
    const context = { getRemainingTimeInMillis: () => 30_000 } as Context;
    // Past the limit: the bucket emptied by the use case's own takes, as a get would.
    await reading(event, context);
    for (let index = 0; index < BURST; index++) deps.readLimiter?.take(keyIdOf(hashApiKey(KEY)), clock.now());
    const refused = (await reading(event, context)) as {
      statusCode: number;
      headers: Record<string, string>;
    };
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(ran).toBe(1);
    expect(((await starting(event, context)) as { statusCode: number }).statusCode).toBe(200);
    expect(ran).toBe(2);
  });

  it('refuse a key with a wrong checksum without reading the store', async () => {
    const { deps, reads } = setUp();
    const get = createGetHandler(deps);
    const forged = `${generateApiKey().slice(0, -6)}AAAAAA`;
    const event = {
      routeKey: 'GET /api/spam-check/{check_id}',
      headers: { authorization: `Bearer ${forged}` },
      pathParameters: { check_id: 'abcdefghijklmnopqrst' },
      requestContext: { requestId: 'r' },
    } as unknown as APIGatewayProxyEventV2;
    const context = { getRemainingTimeInMillis: () => 30_000 } as Context;
    for (let index = 0; index < 5; index++) {
      expect(((await get(event, context)) as { statusCode: number }).statusCode).toBe(401);
    }
    expect(reads).toEqual({ keys: 0, checks: 0 });
  });
});
