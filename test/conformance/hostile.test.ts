// Hostile API input on both endpoints: 10 KB ids, encoded slashes and backslashes, unicode, oversized headers and
// bodies, unparseable HTTP. Each gets the spec's 401 or 404 with its exact detail, or a documented local-server
// addition (413, 431, 400), always JSON `{detail}`, never a 5xx: in process (what API Gateway hands a handler) and
// over real HTTP against the local server.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessApi, inProcessApi } from '../support/invokeInProcess';
import type { ApiResponse, TestService } from '../support/testService';
import { startTestService } from '../support/testService';

const INVALID_KEY = 'Invalid or missing API key';
const NOT_FOUND = 'Check not found or expired';
const START = '/api/spam-check/start';

let service: TestService;
let key: string;
let checkId: string;

beforeAll(async () => {
  service = await startTestService();
  await service.addAccounts({ email: 'alpha@mail.test' }, { email: 'beta@mail.test' });
  key = await service.issueKey('default');
  const started = await service.request('POST', START, { authorization: `Bearer ${key}` });
  checkId = (started.body as { check_id: string }).check_id;
});
afterAll(async () => service.close());

type Call = InProcessApi;
const modes: [string, () => Call][] = [
  ['in process', () => inProcessApi(service.deps)],
  ['over HTTP', () => (method, path, options) => service.request(method, path, options)],
];

const expectError = (response: ApiResponse, status: number, detail: string, what: string) => {
  expect({ what, status: response.status }).toEqual({ what, status });
  expect(response.body, what).toEqual({ detail });
  expect(String(response.headers['content-type']), what).toMatch(/^application\/json/);
};

/** Check ids a client might send, none of them a check: each must be the spec's 404 (or 401 without a key). */
const hostileIds = (): [string, string][] => [
  ['10 KB id', 'a'.repeat(10_240)],
  ['a real id followed by 10 KB', `${checkId}${'a'.repeat(10_220)}`],
  ['encoded slash after a real id', `${checkId}%2F`],
  ['encoded slash before a real id', `%2F${checkId}`],
  ['lower-case encoded slash', `abc%2fdef`],
  ['encoded traversal to start', '..%2Fstart'],
  ['encoded traversal with dots encoded', '%2e%2e%2fstart'],
  ['encoded backslash', `${checkId}%5C`],
  ['lower-case encoded backslash', `%5c${checkId}`],
  ['double-encoded slash', `${checkId}%252F`],
  ['double-encoded backslash', `%255C${checkId}`],
  ['encoded NUL after a real id', `${checkId}%00`],
  ['encoded NUL alone', '%00'],
  ['encoded unicode letter in place of one', `%C3%A9${checkId.slice(1)}`],
  ['encoded emoji', '%F0%9F%93%A8'],
  ['encoded right-to-left override', `%E2%80%AE${checkId}`],
  ['encoded fullwidth letters', '%EF%BD%89%EF%BD%84'],
  ['invalid percent-encoding', `${checkId}%`],
  ['invalid UTF-8 percent-encoding', `%FF${checkId}`],
  ['non-hex percent-encoding', `%zz${checkId}`],
  ['the id in upper case', checkId.toUpperCase()],
  ['the id with an encoded space', `${checkId}%20`],
  // Another id (its first letter changed, never to itself: ids are random) with the real one in a query string.
  [
    'the id with a query string',
    `${checkId.startsWith('x') ? 'y' : 'x'}${checkId.slice(1)}?check_id=${checkId}`,
  ],
];

for (const [mode, api] of modes) {
  describe(`hostile input ${mode}`, () => {
    it('answers the real check (the control: ids are percent-decoded once, as API Gateway does)', async () => {
      const call = api();
      const encodedFirst = `%${checkId.charCodeAt(0).toString(16)}${checkId.slice(1)}`;
      for (const id of [checkId, encodedFirst]) {
        const response = await call('GET', `/api/spam-check/${id}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(response.status, id).toBe(200);
        expect((response.body as { check_id: string }).check_id).toBe(checkId);
      }
    });

    it('answers every hostile check id with 404 `Check not found or expired`, or 401 without a key', async () => {
      const call = api();
      expect(hostileIds().length).toBeGreaterThanOrEqual(20);
      for (const [what, id] of hostileIds()) {
        const path = `/api/spam-check/${id}`;
        expectError(
          await call('GET', path, { headers: { authorization: `Bearer ${key}` } }),
          404,
          NOT_FOUND,
          what,
        );
        expectError(await call('GET', path), 401, INVALID_KEY, `${what}, no key`);
      }
    });

    it('ignores any body sent to start or get: hostile JSON, unicode, binary and 512 KB', async () => {
      const call = api();
      const bodies: [string, string | Buffer][] = [
        ['a 10 KB check id in JSON', JSON.stringify({ check_id: 'a'.repeat(10_240) })],
        ['unicode JSON', JSON.stringify({ check_id: '\u{1f4e8}\u202e\u0000' })],
        ['invalid JSON', '{"check_id": '],
        ['binary', Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x0d, 0x0a])],
        ['512 KB', 'x'.repeat(512 * 1024)],
      ];
      const authorization = `Bearer ${key}`;
      for (const [what, body] of bodies) {
        const started = await call('POST', START, { headers: { authorization }, body });
        expect({ what, status: started.status }).toEqual({ what, status: 200 });
        expectError(await call('POST', START, { body }), 401, INVALID_KEY, `${what} to start, no key`);
        const got = await call('GET', `/api/spam-check/${checkId}`, { headers: { authorization }, body });
        expect({ what, status: got.status }).toEqual({ what, status: 200 });
        expectError(
          await call('GET', `/api/spam-check/${'b'.repeat(20)}`, { headers: { authorization }, body }),
          404,
          NOT_FOUND,
          `${what} to get`,
        );
      }
    });

    it('reads headers of up to 12 KB as usual: a key that long is refused, other headers are ignored', async () => {
      const call = api();
      const filler = { 'x-filler': 'f'.repeat(12 * 1024) };
      const many = Object.fromEntries(
        Array.from({ length: 50 }, (_, index) => [`x-h${index}`, 'v'.repeat(200)]),
      );
      const authorization = `Bearer ${key}`;
      for (const [what, headers] of [
        ['a 12 KB header', filler],
        ['50 headers of 200 bytes', many],
      ] as const) {
        expect((await call('POST', START, { headers: { ...headers, authorization } })).status, what).toBe(
          200,
        );
        expectError(
          await call('GET', `/api/spam-check/${'c'.repeat(20)}`, { headers: { ...headers, authorization } }),
          404,
          NOT_FOUND,
          what,
        );
        expectError(await call('POST', START, { headers }), 401, INVALID_KEY, `${what}, no key`);
      }
      for (const path of [START, `/api/spam-check/${checkId}`]) {
        const method = path === START ? 'POST' : 'GET';
        expectError(
          await call(method, path, { headers: { authorization: `Bearer ${'k'.repeat(12 * 1024)}` } }),
          401,
          INVALID_KEY,
          `a 12 KB key on ${method}`,
        );
      }
    });
  });
}

describe('oversized input in process (no HTTP limits: what a handler gets from API Gateway)', () => {
  it('refuses a 1 MB key with 401 and ignores a 1 MB header or a 2 MB body', async () => {
    const call = inProcessApi(service.deps);
    const authorization = `Bearer ${key}`;
    const megabyte = 'm'.repeat(1024 * 1024);
    for (const [method, path] of [
      ['POST', START],
      ['GET', `/api/spam-check/${checkId}`],
    ] as const) {
      expectError(
        await call(method, path, { headers: { authorization: `Bearer ${megabyte}` } }),
        401,
        INVALID_KEY,
        `1 MB key on ${method}`,
      );
      const big = await call(method, path, { headers: { authorization, 'x-filler': megabyte } });
      expect(big.status, `1 MB header on ${method}`).toBe(200);
      const body = await call(method, path, {
        headers: { authorization },
        body: Buffer.alloc(2 * 1024 * 1024, 1),
      });
      expect(body.status, `2 MB body on ${method}`).toBe(200);
      expectError(
        await call(method, path, { body: megabyte }),
        401,
        INVALID_KEY,
        `1 MB body on ${method}, no key`,
      );
    }
  });
});

describe('oversized and unparseable requests over HTTP (local server)', () => {
  const endpoints = () =>
    [
      ['POST', START],
      ['GET', `/api/spam-check/${checkId}`],
    ] as const;

  it('answers a body over 1 MiB with 413 `Request too large`, key or not', async () => {
    const body = Buffer.alloc(2 * 1024 * 1024, 0x61);
    for (const [method, path] of endpoints()) {
      for (const headers of [{ authorization: `Bearer ${key}` }, {}] as Record<string, string>[]) {
        expectError(await service.request(method, path, { headers, body }), 413, 'Request too large', method);
      }
    }
  });

  it('answers headers over 16 KB with a JSON 431, never a bare one: one big header, many, or a big key', async () => {
    const many = Object.fromEntries(
      Array.from({ length: 100 }, (_, index) => [`x-h${index}`, 'v'.repeat(200)]),
    );
    for (const [method, path] of endpoints()) {
      for (const [what, headers] of [
        ['a 20 KB header with a key', { authorization: `Bearer ${key}`, 'x-filler': 'f'.repeat(20 * 1024) }],
        ['100 headers of 200 bytes', { authorization: `Bearer ${key}`, ...many }],
        ['a 20 KB key', { authorization: `Bearer ${'k'.repeat(20 * 1024)}` }],
        ['a 1 MB header without a key', { 'x-filler': 'f'.repeat(1024 * 1024) }],
      ] as const) {
        expectError(
          await service.request(method, path, { headers }),
          431,
          'Request headers too large',
          `${what} on ${method}`,
        );
      }
    }
  });

  it('answers requests Node cannot parse with a JSON 400, never a bare one or a 5xx', async () => {
    const { port } = new URL(service.baseUrl);
    const malformed: [string, Buffer][] = [
      ['NUL in the Authorization value', Buffer.from(`Authorization: Bearer ${key}\u0000\r\n`)],
      ['obsolete folding of Authorization', Buffer.from(`Authorization: Bearer\r\n ${key}\r\n`)],
      ['a bare CR in a header', Buffer.from(`Authorization: Bearer ${key}\rX: y\r\n`)],
      ['a header name with a space', Buffer.from(`Authori zation: Bearer ${key}\r\n`)],
    ];
    for (const [method, path] of endpoints()) {
      for (const [what, header] of malformed) {
        const request = Buffer.concat([
          Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`),
          header,
          Buffer.from('Connection: close\r\n\r\n'),
        ]);
        expectError(await rawHttp(Number(port), request), 400, 'Malformed request', `${what} on ${method}`);
      }
      // Node's HTTP client turns `\` into `/`, so the raw backslash is sent from here.
      const backslash = Buffer.from(
        `GET /api/spam-check/${checkId.slice(0, 10)}\\${checkId.slice(11)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`,
      );
      expectError(await rawHttp(Number(port), backslash), 404, NOT_FOUND, 'a raw backslash in the id');
      const utf8Path = Buffer.from(
        `${method} ${path}\u00e9\u{1f4e8} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      expectError(
        await rawHttp(Number(port), utf8Path),
        400,
        'Malformed request',
        `raw UTF-8 in the path, ${method}`,
      );
    }
    for (const [what, request] of [
      ['a method with a bracket', 'G(T / HTTP/1.1\r\nHost: x\r\n\r\n'],
      ['no HTTP at all', '\u0000\u0001 hello\r\n\r\n'],
    ] as const) {
      expectError(await rawHttp(Number(port), Buffer.from(request)), 400, 'Malformed request', what);
    }
  });

  it('answers a UTF-8 key sent as raw bytes with 401, on both endpoints', async () => {
    const { port } = new URL(service.baseUrl);
    for (const [method, path] of endpoints()) {
      const request = Buffer.from(
        `${method} ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \u043a\u043b\u044e\u0447\r\nConnection: close\r\n\r\n`,
      );
      expectError(await rawHttp(Number(port), request), 401, INVALID_KEY, method);
    }
  });
});

/** Writes raw bytes (no client-side checks) and reads the whole answer; the socket is kept open until the server ends it. */
const rawHttp = (port: number, request: Buffer): Promise<ApiResponse> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('latin1');
      const [head = '', rest = ''] = raw.split(/\r\n\r\n(.*)/s);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const chunked = /chunked/i.test(headers['transfer-encoding'] ?? '');
      const text = chunked ? rest.replace(/^[0-9a-f]+\r\n/i, '').replace(/\r\n0\r\n\r\n$/, '') : rest;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, text });
    });
  });
