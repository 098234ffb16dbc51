// The local API (real handlers, middy stack and Node HTTP adapter) over a dynalite the test owns, reached only
// through dynamoProxy, so a test can take DynamoDB away, hang it or throttle it while clients call the API.
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { createHandler as createFallback } from '../../functions/fallback';
import { createHandler as createGet } from '../../functions/get';
import { createHandler as createStart } from '../../functions/start';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../../shared/adapters/dynamo/DynamoApiKeyStore';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { generateApiKey, newApiKeyRecord } from '../../shared/domain/apiKey';
import { AuthCache, DEFAULT_AUTH_CACHE_TTL_MS } from '../../shared/domain/authCache';
import type { Clock } from '../../shared/domain/clock';
import { ensureTable } from '../../shared/local/bootstrap';
import { startDynalite } from '../../shared/local/dynalite';
import { createLocalServer } from '../../shared/local/httpAdapter';
import { createLogger, type Logger } from '../../shared/log';
import type { ApiDeps } from '../../shared/runtime/apiDeps';
import { type DynamoProxy, startDynamoProxy } from './dynamoProxy';
import { validateResponse } from './openapi';
import { rawRequest } from './rawRequest';
import type { ApiResponse } from './testService';

const TABLE = 'faults-table';

export interface ProxiedService {
  baseUrl: string;
  proxy: DynamoProxy;
  /** Goes through the proxy, like every part of the service. */
  client: DynamoDBDocumentClient;
  table: string;
  deps: ApiDeps;
  /** Everything the API logged (level and message), so a test can see what a 500 was about. */
  logs: { level: string; message: string }[];
  issueKey(scope: string): Promise<string>;
  addAccount(email: string, scope: string): Promise<void>;
  /** A request over HTTP; the response must be one openapi.yaml documents. */
  request(method: string, path: string, key: string): Promise<ApiResponse & { ms: number }>;
  close(): Promise<void>;
}

export const startProxiedService = async (clock: Clock): Promise<ProxiedService> => {
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-faults-'));
  const dynamo = await startDynalite({ path: dir });
  const direct = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
  await ensureTable(direct, TABLE);
  direct.destroy();
  const proxy = await startDynamoProxy(dynamo.endpoint);
  const client = createDocumentClient({ region: 'local', endpoint: proxy.endpoint });
  const logs: ProxiedService['logs'] = [];
  const log: Logger = createLogger('api', 'debug', (line) => {
    const { level, message } = JSON.parse(line) as { level: string; message: string };
    logs.push({ level, message });
  });
  const deps: ApiDeps = {
    keys: new DynamoApiKeyStore(client, TABLE),
    checks: new DynamoCheckStore(client, TABLE),
    accounts: new DynamoAccountRegistry(client, TABLE),
    clock,
    log,
    authCache: new AuthCache(DEFAULT_AUTH_CACHE_TTL_MS),
  };
  const server = createLocalServer(
    { start: createStart(deps), get: createGet(deps), fallback: createFallback(deps) },
    log,
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    proxy,
    client,
    table: TABLE,
    deps,
    logs,
    issueKey: async (scope) => {
      const key = generateApiKey();
      await deps.keys.create(newApiKeyRecord(key, { scope, label: 'faults' }, clock.now()));
      return key;
    },
    addAccount: (email, scope) => deps.accounts.put({ email, provider: 'imap', scope, active: true }),
    request: async (method, path, key) => {
      const began = performance.now();
      const response = await rawRequest(baseUrl, method, path, { authorization: `Bearer ${key}` });
      const ms = Math.round(performance.now() - began);
      let body: unknown;
      try {
        body = JSON.parse(response.text);
      } catch {
        body = undefined;
      }
      validateResponse(method, path, response.status, body, response.headers);
      return { status: response.status, headers: response.headers, body, text: response.text, ms };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      client.destroy();
      await proxy.close();
      await dynamo.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** What a 5xx body must never carry: a stack, a socket error code, where DynamoDB lives, an SDK error name. */
export const leaksIn = (text: string, proxy: DynamoProxy): string[] => {
  const { port } = new URL(proxy.endpoint);
  const needles = [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'socket',
    'Timeout',
    'Throttling',
    'ProvisionedThroughput',
    '127.0.0.1',
    `:${port}`,
    proxy.endpoint,
    '    at ',
    'stack',
    'Error:',
    'dynamo',
    'amazonaws',
  ];
  return needles.filter((needle) => text.toLowerCase().includes(needle.toLowerCase()));
};

/** A 5xx a client can handle: JSON `{detail}` and nothing else, with no internals in it. */
export const expectClean5xx = (response: ApiResponse, proxy: DynamoProxy, what: string) => {
  expect(response.status, what).toBeGreaterThanOrEqual(500);
  expect(response.status, what).toBeLessThan(600);
  expect(String(response.headers['content-type']), what).toMatch(/^application\/json/);
  expect(response.body, what).toEqual({ detail: expect.any(String) });
  expect(leaksIn(response.text, proxy), what).toEqual([]);
};
