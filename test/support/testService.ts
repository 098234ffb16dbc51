// Starts the real local service for a test: a persisted dynalite (or a table of its own in the run's AWS DynamoDB
// Local), the handlers built over it, and Node HTTP, with a ManualClock so timeout and expiry are tested without
// sleeping.

import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { createHandler as createFallback } from '../../functions/fallback';
import { createHandler as createGet } from '../../functions/get';
import { createHandler as createStart } from '../../functions/start';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../../shared/adapters/dynamo/DynamoApiKeyStore';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoKeyUsage } from '../../shared/adapters/dynamo/DynamoKeyUsage';
import { DynamoOpenChecks } from '../../shared/adapters/dynamo/DynamoOpenChecks';
import { DynamoShardLayout } from '../../shared/adapters/dynamo/DynamoShardLayout';
import { DynamoWebhookStore } from '../../shared/adapters/dynamo/DynamoWebhookStore';
import type { ApiDeps } from '../../shared/composition/apiDeps';
import type { TestAccount } from '../../shared/domain/account';
import { generateApiKey, newApiKeyRecord } from '../../shared/domain/apiKey';
import { AuthCache, DEFAULT_AUTH_CACHE_TTL_MS } from '../../shared/domain/authCache';
import type { Clock } from '../../shared/domain/clock';
import type { KeyLimits } from '../../shared/domain/keyLimits';
import { ReadLimiter, type ReadLimits } from '../../shared/domain/readLimits';
import { createScreen } from '../../shared/http/handlers';
import { ensureTable } from '../../shared/local/bootstrap';
import { startDynalite } from '../../shared/local/dynalite';
import { createLocalServer } from '../../shared/local/httpAdapter';
import { createLogger, type Logger } from '../../shared/log';
import { settleCheck } from '../../shared/usecases/settleCheck';
import { DYNAMO_LOCAL_TIMEOUTS } from './dynamoLocal';
import { ManualClock } from './manualClock';
import { validateResponse } from './openapi';
import { rawRequest } from './rawRequest';

const TABLE = 'test-table';

export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text: string;
}

export interface TestService {
  baseUrl: string;
  clock: TestClock;
  client: DynamoDBDocumentClient;
  table: string;
  deps: ApiDeps;
  /** The scanner's side of the same checks: listing, recording results, settling. */
  /** The scanner's view of the checks: listing, result writes and settling (with webhooks queued), as it runs. */
  openChecks: ReturnType<typeof settleCheck>;
  issueKey(scope: string, options?: { expiresAt?: number }): Promise<string>;
  addAccounts(...accounts: Partial<TestAccount>[]): Promise<void>;
  request(
    method: string,
    path: string,
    options?: { authorization?: string; body?: string | Buffer; headers?: Record<string, string | string[]> },
  ): Promise<ApiResponse>;
  close(): Promise<void>;
}

/** A clock tests can push forward: ManualClock for pure API tests, OffsetClock next to real mail servers. */
export type TestClock = Clock & { advance(ms: number): void; set?(ms: number): void };

export interface TestServiceOptions {
  /** Per-key limits on start; off unless given, since most tests start many checks at one fixed moment. */
  keyLimits?: KeyLimits;
  /** The auth cache's lifetime; the production default unless given. */
  authCacheTtlMs?: number;
  /** The per-key limit on get and the report; off unless given, like keyLimits. */
  readLimits?: ReadLimits;
  /** Where the handlers log; nowhere unless given. */
  log?: Logger;
  /** Something every part reaches the store through (a proxy the test controls), closed with the service. */
  dynamoFront?: (endpoint: string) => Promise<{ endpoint: string; close(): Promise<void> }>;
  /**
   * `dynamodb-local`: a fresh table in the run's AWS DynamoDB Local (started by test/support/dynamoLocal.globalSetup.ts)
   * instead of a dynalite of its own: for the suites whose correctness rests on DynamoDB's own semantics.
   */
  store?: 'dynalite' | 'dynamodb-local';
}

/** The store a test service runs on: its endpoint, its table and how to let go of it. */
const openStore = async (store: TestServiceOptions['store']) => {
  if (store === 'dynamodb-local') {
    return {
      endpoint: inject('dynamoLocalEndpoint'),
      table: `test-${randomUUID()}`,
      // A JVM on a busy 2-core machine answers slower than DynamoDB: the tests on it are about semantics, not time.
      timeouts: DYNAMO_LOCAL_TIMEOUTS,
      close: async () => undefined,
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'inbox-placement-test-'));
  const dynamo = await startDynalite({ path: dir });
  return {
    endpoint: dynamo.endpoint,
    table: TABLE,
    timeouts: undefined,
    close: async () => {
      await dynamo.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

export const startTestService = async <C extends TestClock = ManualClock>(
  clock: C = new ManualClock(Date.UTC(2026, 10, 22, 12, 0, 0)) as unknown as C,
  options: TestServiceOptions = {},
): Promise<TestService & { clock: C }> => {
  const dynamo = await openStore(options.store);
  const TABLE = dynamo.table;
  const front = await options.dynamoFront?.(dynamo.endpoint);
  const client = createDocumentClient({
    region: 'local',
    endpoint: front?.endpoint ?? dynamo.endpoint,
    ...(dynamo.timeouts ? { timeouts: dynamo.timeouts } : {}),
  });
  await ensureTable(client, TABLE);
  const log = options.log ?? createLogger('test', 'error', () => undefined);
  const deps: ApiDeps = {
    keys: new DynamoApiKeyStore(client, TABLE),
    checks: new DynamoCheckStore(client, TABLE, new DynamoShardLayout(client, TABLE)),
    accounts: new DynamoAccountRegistry(client, TABLE),
    clock,
    log,
    authCache: new AuthCache(options.authCacheTtlMs ?? DEFAULT_AUTH_CACHE_TTL_MS),
    keyLimits: options.keyLimits && { usage: new DynamoKeyUsage(client, TABLE), limits: options.keyLimits },
    readLimiter: options.readLimits && new ReadLimiter(options.readLimits),
  };
  // Screened as npm start screens, so every conformance test sees the answers a screened refusal gives.
  const server = createLocalServer(
    { start: createStart(deps), get: createGet(deps), fallback: createFallback(deps) },
    log,
    { screen: createScreen(deps) },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    baseUrl,
    clock,
    client,
    table: TABLE,
    deps,
    openChecks: settleCheck({
      store: new DynamoOpenChecks(client, TABLE, new DynamoShardLayout(client, TABLE)),
      queue: new DynamoWebhookStore(client, TABLE),
    }),
    issueKey: async (scope, options = {}) => {
      const key = generateApiKey();
      await deps.keys.create(
        newApiKeyRecord(key, { scope, label: 'test', expiresAt: options.expiresAt }, clock.now()),
      );
      return key;
    },
    addAccounts: async (...accounts) => {
      for (const [index, account] of accounts.entries()) {
        await deps.accounts.put({
          email: `acct${index}@mail.test`,
          provider: 'imap',
          scope: 'default',
          active: true,
          ...account,
        });
      }
    },
    request: async (method, path, options = {}) => {
      const headers: Record<string, string | string[]> = { ...options.headers };
      if (options.authorization !== undefined) headers.authorization = options.authorization;
      const response = await rawRequest(baseUrl, method, path, headers, options.body);
      const text = response.text;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      // Every response any test receives must be one openapi.yaml documents, body and headers.
      validateResponse(method, path, response.status, body, response.headers);
      return { status: response.status, headers: response.headers, body, text };
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      client.destroy();
      await front?.close();
      await dynamo.close();
    },
  };
};
