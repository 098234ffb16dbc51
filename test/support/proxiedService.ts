import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import type { ApiDeps } from '../../shared/composition/apiDeps';
import { STORE_RETRY_AFTER_SECONDS } from '../../shared/domain/errors';
import { createLogger } from '../../shared/log';
import { type DynamoProxy, startDynamoProxy } from './dynamoProxy';
import { type ApiResponse, startTestService, type TestClock } from './testService';

const _TABLE = 'faults-table';

export interface ProxiedService {
  baseUrl: string;
  proxy: DynamoProxy;
  /** Goes through the proxy, like every part of the service. */
  client: DynamoDBDocumentClient;
  table: string;
  deps: ApiDeps;
  /** Everything the API logged (level, message and fields), so a test can see what a 5xx was about. */
  logs: { level: string; message: string; [field: string]: unknown }[];
  issueKey(scope: string): Promise<string>;
  addAccount(email: string, scope: string): Promise<void>;
  /** A request over HTTP; the response must be one openapi.yaml documents. */
  request(method: string, path: string, key: string): Promise<ApiResponse & { ms: number }>;
  close(): Promise<void>;
}

export const startProxiedService = async (clock: TestClock): Promise<ProxiedService> => {
  let proxy: DynamoProxy | undefined;
  const logs: ProxiedService['logs'] = [];
  const service = await startTestService(clock, {
    log: createLogger('api', 'debug', (line) => {
      logs.push(JSON.parse(line) as ProxiedService['logs'][number]);
    }),
    dynamoFront: async (endpoint) => (proxy = await startDynamoProxy(endpoint)),
  });
  if (!proxy) throw new Error('the DynamoDB proxy did not start');
  return {
    baseUrl: service.baseUrl,
    proxy,
    client: service.client,
    table: service.table,
    deps: service.deps,
    logs,
    issueKey: (scope) => service.issueKey(scope),
    addAccount: (email, scope) => service.deps.accounts.put({ email, provider: 'imap', scope, active: true }),
    request: async (method, path, key) => {
      const began = performance.now();
      const response = await service.request(method, path, { authorization: `Bearer ${key}` });
      return { ...response, ms: Math.round(performance.now() - began) };
    },
    close: () => service.close(),
  };
};

/** What a 5xx body must never carry: a stack, a socket error code, where DynamoDB lives, an SDK error name. */
const leaksIn = (text: string, proxy: DynamoProxy): string[] => {
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

/** A store outage answered as what it is: 503, the one `{detail}`, a Retry-After, and nothing of the cause. */
export const expectUnavailable = (response: ApiResponse, proxy: DynamoProxy, what: string) => {
  expect(response.status, what).toBe(503);
  expect(String(response.headers['content-type']), what).toMatch(/^application\/json/);
  expect(response.body, what).toEqual({ detail: 'Service temporarily unavailable' });
  expect(response.headers['retry-after'], what).toBe(String(STORE_RETRY_AFTER_SECONDS));
  expect(leaksIn(response.text, proxy), what).toEqual([]);
};
