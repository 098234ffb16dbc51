// The typed client against a scripted HTTP server on loopback: requests it makes, the error it throws for each kind
// of answer (or none), polling until settled at the spec's interval, and aborting without leaving timers behind.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pause } from '../../scripts/lib/poll';
import {
  ApiError,
  ApiKeyRejectedError,
  BadResponseError,
  CheckGoneError,
  CheckNotFoundError,
  type CheckView,
  createClient,
  InboxPlacementError,
  InvalidApiKeyError,
  inboxRate,
  NetworkError,
  NoAccountsError,
  NoAccountsInScopeError,
  POLL_INTERVAL_MS,
  pollIntervalOf,
  WaitTimeoutError,
} from '../../shared/client';
import * as serverErrors from '../../shared/domain/errors';
import { withSnakeKeys } from '../../shared/domain/wireKeys';
import { sampleReport } from '../support/placementReport';
import { readyAudit, trippingParts } from '../support/reportAudits';

interface Answer {
  status?: number;
  /** An object is sent as JSON, a string as it is. */
  body?: unknown;
  /** Never answer: the request hangs until the client gives up. */
  hang?: boolean;
}

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  at: number;
}

let server: Server;
let baseUrl: string;
let seen: Seen[];
let script: (request: IncomingMessage, index: number) => Answer;

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({
      method: request.method ?? '',
      url: request.url ?? '',
      authorization: request.headers.authorization,
      at: Date.now(),
    });
    const answer = script(request, seen.length - 1);
    if (answer.hang) return;
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
    response.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(text);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen = [];
  script = () => ({ status: 500, body: { detail: 'unscripted' } });
});

const KEY = 'ipk_test-key';
const client = () => createClient({ baseUrl, apiKey: KEY });

const check = (status: CheckView['status'], received: number, total = 2): CheckView => ({
  check_id: 'c1',
  status,
  received,
  total,
  results: [
    { email: 'inbox@mail.test', category: received > 0 ? 'primary' : 'pending' },
    { email: 'junk@mail.test', category: received > 1 ? 'spam' : 'pending' },
  ],
});

/** What the promise settles with, and how long that took. */
const settle = async <T>(promise: Promise<T>) => {
  const started = Date.now();
  try {
    return { value: await promise, ms: Date.now() - started };
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
};

/**
 * The bound for "at once": far above what the client takes even on a loaded shared machine, far below what it
 * would take if the behaviour were wrong (the next poll 5 s later, the default 30 s request timeout).
 */
const PROMPTLY_MS = 2500;

const activeTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('startCheck and getCheck', () => {
  it('start POSTs with the bearer key under the base path and returns check_id and accounts', async () => {
    script = () => ({ body: { check_id: 'c1', accounts: ['inbox+tc_c1@mail.test'] } });
    const staged = createClient({ baseUrl: `${baseUrl}/prod/`, apiKey: KEY });
    expect(await staged.startCheck()).toEqual({ check_id: 'c1', accounts: ['inbox+tc_c1@mail.test'] });
    expect(seen).toMatchObject([
      { method: 'POST', url: '/prod/api/spam-check/start', authorization: `Bearer ${KEY}` },
    ]);
  });

  it('get reads the check by its id, escaped into the path', async () => {
    script = () => ({ body: check('pending', 1) });
    expect(await client().getCheck('c1')).toEqual(check('pending', 1));
    await client().getCheck('a/b?c');
    expect(seen.map((request) => request.url)).toEqual(['/api/spam-check/c1', '/api/spam-check/a%2Fb%3Fc']);
  });

  it('names its errors as the server does, the 1.0 names kept as deprecated aliases of the same classes', () => {
    expect([InvalidApiKeyError, NoAccountsError, CheckNotFoundError].map((error) => error.name)).toEqual(
      [serverErrors.InvalidApiKeyError, serverErrors.NoAccountsError, serverErrors.CheckNotFoundError].map(
        (error) => error.name,
      ),
    );
    expect(new NoAccountsError('x').name).toBe('NoAccountsError');
    expect(ApiKeyRejectedError).toBe(InvalidApiKeyError);
    expect(NoAccountsInScopeError).toBe(NoAccountsError);
    expect(CheckGoneError).toBe(CheckNotFoundError);
  });

  it("hands back the report's audit by its snake_case names, from a 1.0 service's camelCase too", async () => {
    const audit = await readyAudit({ parts: trippingParts() });
    if (audit.state !== 'ready') throw new Error('fixture');
    const wire = withSnakeKeys(audit);
    for (const served of [audit, wire]) {
      script = () => ({ body: JSON.parse(JSON.stringify({ ...sampleReport('c1'), audit: served })) });
      const report = await client().getReport('c1');
      if (report.audit?.state !== 'ready') throw new Error('fixture');
      expect(report.audit.fix_first).toEqual(JSON.parse(JSON.stringify(wire.fix_first)));
      expect(report.audit.not_checked).toHaveLength(audit.notChecked.length);
    }
  });

  it('throws InvalidApiKeyError for 401 on either endpoint', async () => {
    script = () => ({ status: 401, body: { detail: 'Invalid or missing API key' } });
    for (const call of [client().startCheck(), client().getCheck('c1')] as Promise<unknown>[]) {
      const { error } = await settle(call);
      expect(error).toBeInstanceOf(InvalidApiKeyError);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({
        status: 401,
        detail: 'Invalid or missing API key',
        kind: 'InvalidApiKey',
      });
    }
  });

  it('throws NoAccountsError for 404 on start and CheckNotFoundError for 404 on get', async () => {
    script = (request) => ({
      status: 404,
      body: {
        detail:
          request.method === 'POST' ? 'No accounts available for this scope' : 'Check not found or expired',
      },
    });
    const started = await settle(client().startCheck());
    expect(started.error).toBeInstanceOf(NoAccountsError);
    expect(started.error).toMatchObject({
      kind: 'NoAccounts',
      detail: 'No accounts available for this scope',
    });
    const read = await settle(client().getCheck('gone'));
    expect(read.error).toBeInstanceOf(CheckNotFoundError);
    expect(read.error).toMatchObject({ kind: 'CheckNotFound', checkId: 'gone', status: 404 });
  });

  it('throws a plain ApiError for another status with a {detail} body', async () => {
    script = () => ({ status: 500, body: { detail: 'Internal server error' } });
    const { error } = await settle(client().getCheck('c1'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(CheckNotFoundError);
    expect(error).toMatchObject({ status: 500, kind: 'Other', message: '500 Internal server error' });
  });

  it('throws BadResponseError for a non-JSON body, an error without detail, or a body of the wrong shape', async () => {
    const answers: Answer[] = [
      { status: 200, body: '<html>hello</html>' },
      { status: 502, body: '<html>Bad Gateway</html>' },
      { status: 404, body: { message: 'Not Found' } },
      { status: 200, body: { ...check('pending', 0), status: 'done' } },
      {
        status: 200,
        body: { ...check('pending', 0), results: [{ email: 'x@mail.test', category: 'inbox' }] },
      },
    ];
    script = (_request, index) => answers[index] ?? {};
    const errors = [];
    for (let index = 0; index < answers.length; index++)
      errors.push((await settle(client().getCheck('c1'))).error);
    for (const error of errors) {
      expect(error).toBeInstanceOf(BadResponseError);
      expect(error).not.toBeInstanceOf(ApiError);
    }
    expect(errors.map((error) => (error as BadResponseError).status)).toEqual([200, 502, 404, 200, 200]);
    expect((errors[0] as Error).message).toContain('not JSON');
    expect((errors[2] as Error).message).toContain('without a {detail} body');
    expect((errors[3] as Error).message).toContain('status "done"');
    expect((errors[4] as Error).message).toContain('category "inbox"');
  });

  it('throws NetworkError when nothing listens, and when no answer comes within the request timeout', async () => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const refused = await settle(
      createClient({ baseUrl: `http://127.0.0.1:${closedPort}`, apiKey: KEY }).startCheck(),
    );
    expect(refused.error).toBeInstanceOf(NetworkError);
    expect(refused.error).toBeInstanceOf(InboxPlacementError);
    expect((refused.error as Error).message).toMatch(/cannot reach .*ECONNREFUSED/);

    script = () => ({ hang: true });
    const timers = activeTimers();
    const silent = await settle(createClient({ baseUrl, apiKey: KEY, requestTimeoutMs: 200 }).getCheck('c1'));
    expect(silent.error).toBeInstanceOf(NetworkError);
    // The message names the timeout that fired: the 200 ms asked for, not the 30 s default.
    expect((silent.error as Error).message).toContain('no answer within 200 ms');
    expect(silent.ms).toBeLessThan(PROMPTLY_MS);
    expect(activeTimers()).toBeLessThanOrEqual(timers);
  });

  it('refuses a base URL that is not http(s) and a key that cannot go into a header', () => {
    expect(() => createClient({ baseUrl: 'not a url', apiKey: KEY })).toThrow(TypeError);
    expect(() => createClient({ baseUrl: 'ftp://127.0.0.1', apiKey: KEY })).toThrow(/http or https/);
    expect(() => createClient({ baseUrl, apiKey: 'two words' })).toThrow(/apiKey/);
    expect(() => createClient({ baseUrl, apiKey: '' })).toThrow(/apiKey/);
  });
});

describe('waitForCheck', () => {
  const fast = { intervalMs: 30, minIntervalMs: 30 };

  it('polls at once and then every interval until complete, reporting each read', async () => {
    const states = [check('pending', 0), check('pending', 1), check('complete', 2)];
    script = (_request, index) => ({ body: states[index] });
    const progress: number[] = [];
    const done = await client().waitForCheck('c1', { ...fast, onProgress: (c) => progress.push(c.received) });
    expect(done).toEqual(states[2]);
    expect(progress).toEqual([0, 1, 2]);
    expect(seen).toHaveLength(3);
    const gaps = seen.slice(1).map((request, index) => request.at - (seen[index]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(25);
  });

  it('stops on timeout as well, with the accounts that never received the message still pending', async () => {
    script = (_request, index) => ({ body: index < 1 ? check('pending', 1) : check('timeout', 1) });
    const done = await client().waitForCheck('c1', fast);
    expect(done.status).toBe('timeout');
    expect(done.results.find((r) => r.email === 'junk@mail.test')?.category).toBe('pending');
    expect(seen).toHaveLength(2);
  });

  it('retries a transient failure at the next poll but gives up at once on a 401 or 404', async () => {
    const answers: Answer[] = [
      { status: 503, body: { detail: 'Service Unavailable' } },
      { body: check('complete', 2) },
    ];
    script = (_request, index) => answers[index] ?? {};
    expect((await client().waitForCheck('c1', fast)).status).toBe('complete');

    seen = [];
    script = () => ({ status: 404, body: { detail: 'Check not found or expired' } });
    const { error } = await settle(client().waitForCheck('c1', fast));
    expect(error).toBeInstanceOf(CheckNotFoundError);
    expect(seen).toHaveLength(1);

    seen = [];
    script = () => ({ status: 502, body: 'Bad Gateway' });
    const repeated = await settle(client().waitForCheck('c1', { ...fast, retries: 2 }));
    expect(repeated.error).toBeInstanceOf(BadResponseError);
    expect(seen).toHaveLength(3);
  });

  it('rejects with WaitTimeoutError carrying the last check when its own deadline passes', async () => {
    script = () => ({ body: check('pending', 1) });
    const { error, ms } = await settle(client().waitForCheck('c1', { ...fast, timeoutMs: 200 }));
    expect(error).toBeInstanceOf(WaitTimeoutError);
    expect((error as WaitTimeoutError).lastCheck).toEqual(check('pending', 1));
    expect(ms).toBeGreaterThanOrEqual(190);
    // With polls every 30 ms it would go on until the test's own limit if the deadline were ignored.
    expect(ms).toBeLessThan(PROMPTLY_MS * 4);
  });

  it('rejects promptly with an AbortError while waiting between polls, leaving no timer behind', async () => {
    script = () => ({ body: check('pending', 0) });
    const timers = activeTimers();
    const controller = new AbortController();
    const waiting = settle(client().waitForCheck('c1', { signal: controller.signal }));
    while (seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await pause(50);
    const abortedAt = Date.now();
    controller.abort();
    const { error } = await waiting;
    // Without the abort it would sleep out the 5 s default interval.
    expect(Date.now() - abortedAt).toBeLessThan(PROMPTLY_MS);
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(1);
    expect(activeTimers()).toBeLessThanOrEqual(timers);
  });

  it('rejects promptly with an AbortError while a request is in flight, and at once when already aborted', async () => {
    script = () => ({ hang: true });
    const controller = new AbortController();
    const waiting = settle(client().waitForCheck('c1', { signal: controller.signal }));
    while (seen.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const { error, ms } = await waiting;
    expect(error).toMatchObject({ name: 'AbortError' });
    // The request hangs: without the abort it would wait out the 30 s default request timeout.
    expect(ms).toBeLessThan(PROMPTLY_MS * 4);

    seen = [];
    const aborted = await settle(client().waitForCheck('c1', { signal: AbortSignal.abort() }));
    expect(aborted.error).toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(0);
  });

  it('waits the spec interval by default: a shorter wish is clamped up to 5 s unless a lower floor is given', async () => {
    script = () => ({ body: check('pending', 0) });
    for (const options of [{}, { intervalMs: 1 }]) {
      seen = [];
      const controller = new AbortController();
      const waiting = settle(client().waitForCheck('c1', { ...options, signal: controller.signal }));
      await pause(400);
      controller.abort();
      await waiting;
      expect(seen).toHaveLength(1);
    }
  });
});

describe('poll interval and inbox rate', () => {
  it('defaults to 5 s and clamps to the spec’s 5–15 s; only minIntervalMs lowers the floor', () => {
    expect(POLL_INTERVAL_MS).toEqual({ default: 5000, min: 5000, max: 15_000 });
    expect(pollIntervalOf()).toBe(5000);
    expect(pollIntervalOf({ intervalMs: 1000 })).toBe(5000);
    expect(pollIntervalOf({ intervalMs: 7000 })).toBe(7000);
    expect(pollIntervalOf({ intervalMs: 60_000 })).toBe(15_000);
    expect(pollIntervalOf({ intervalMs: 50, minIntervalMs: 10 })).toBe(50);
    expect(pollIntervalOf({ intervalMs: 1, minIntervalMs: 10 })).toBe(10);
    expect(pollIntervalOf({ minIntervalMs: 10 })).toBe(5000);
    expect(() => pollIntervalOf({ intervalMs: Number.NaN })).toThrow(RangeError);
  });

  it('counts primary and updates as inbox, over every account of the check', () => {
    const results = (['primary', 'updates', 'spam', 'pending'] as const).map((category, index) => ({
      email: `a${index}@mail.test`,
      category,
    }));
    expect(inboxRate({ total: 4, results })).toBe(0.5);
    expect(inboxRate({ total: 4, results: results.slice(2) })).toBe(0);
    expect(inboxRate({ total: 0, results: [] })).toBe(0);
  });
});
