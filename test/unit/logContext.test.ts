// Log lines with context: each line of an invocation carries its request id and cold start, and the lines about a
// check (started, read, settled by the scanner) carry its id under one key, check_id. Handlers run in-process
// with a fake Lambda context over the local store; the logger writes the JSON lines it writes off Lambda.
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createScanner } from '../../shared/composition/scanner';
import { ACTIVE_MS } from '../../shared/domain/limits';
import { createGetHandler, createStartHandler } from '../../shared/http/handlers';
import { createLogger, lambdaContext } from '../../shared/log';
import { startTestService, type TestService } from '../support/testService';

// What Lambda sets for an on-demand environment; Powertools reports a cold start only then.
vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
const lines: Record<string, unknown>[] = [];
const log = createLogger('test', 'debug', (line) => lines.push(JSON.parse(line)));
const linesSince = (mark: number) => lines.slice(mark);

const contextOf = (requestId: string) =>
  ({
    awsRequestId: requestId,
    functionName: 'inbox-placement-test',
    functionVersion: '7',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:inbox-placement-test:live',
    memoryLimitInMB: '256',
    getRemainingTimeInMillis: () => 10_000,
  }) as unknown as Context;

const eventOf = (
  method: 'GET' | 'POST',
  routeKey: string,
  path: string,
  key: string,
  pathParameters?: Record<string, string>,
): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString: '',
    headers: { authorization: `Bearer ${key}` },
    requestContext: {
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: `gw-${routeKey}`,
      routeKey,
      stage: '$default',
    },
    ...(pathParameters ? { pathParameters } : {}),
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEventV2;

describe('log lines with context', () => {
  let service: TestService;
  let key: string;
  beforeAll(async () => {
    service = await startTestService(undefined, { log });
    key = await service.issueKey('default');
    await service.addAccounts({});
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await service?.close();
  });

  it('tie start, get and the scanner lines of one check together by check_id, each with its request id', async () => {
    const start = createStartHandler(service.deps);
    const get = createGetHandler(service.deps);

    let mark = lines.length;
    const started = (await start(
      eventOf('POST', 'POST /api/spam-check/start', '/api/spam-check/start', key),
      contextOf('request-start'),
    )) as APIGatewayProxyStructuredResultV2;
    expect(started.statusCode).toBe(200);
    const checkId = (JSON.parse(String(started.body)) as { check_id: string }).check_id;
    const startLines = linesSince(mark);
    expect(startLines.find((line) => line.message === 'check started')).toMatchObject({
      check_id: checkId,
      function_request_id: 'request-start',
      cold_start: true,
    });
    for (const line of startLines) expect(line.function_request_id).toBe('request-start');

    mark = lines.length;
    const read = (await get(
      eventOf('GET', 'GET /api/spam-check/{check_id}', `/api/spam-check/${checkId}`, key, {
        check_id: checkId,
      }),
      contextOf('request-get'),
    )) as APIGatewayProxyStructuredResultV2;
    expect(read.statusCode).toBe(200);
    expect(linesSince(mark)).toContainEqual(
      expect.objectContaining({
        message: 'check read',
        check_id: checkId,
        function_request_id: 'request-get',
        cold_start: false,
      }),
    );

    // The scanner settles the check once its minutes are over, inside its own invocation, as functions/scan.ts runs.
    const scanLog = createLogger('scan', 'debug', (line) => lines.push(JSON.parse(line)));
    const { scanner } = createScanner({
      client: service.client,
      tableName: service.table,
      credentials: { get: async () => undefined },
      clock: service.clock,
      log: scanLog,
      watch: false,
    });
    const scan = middy(async () => {
      const { started: sweeps } = await scanner.tick();
      await Promise.all(sweeps);
    }).use(lambdaContext(scanLog));
    service.clock.advance(ACTIVE_MS + 60_000);
    mark = lines.length;
    await scan(undefined, contextOf('request-scan'));
    await scanner.close();
    expect(linesSince(mark)).toContainEqual(
      expect.objectContaining({
        message: 'check settled',
        check_id: checkId,
        status: 'timeout',
        function_request_id: 'request-scan',
        cold_start: true,
      }),
    );
  });

  it('logs no check_id from a path that is not a check id, and no credential at all', async () => {
    const get = createGetHandler(service.deps);
    const mark = lines.length;
    const hostile = 'x'.repeat(300);
    await get(
      eventOf('GET', 'GET /api/spam-check/{check_id}', `/api/spam-check/${hostile}`, key, {
        check_id: hostile,
      }),
      contextOf('request-hostile'),
    );
    const written = JSON.stringify(linesSince(mark));
    expect(written).not.toContain(hostile);
    expect(JSON.stringify(lines)).not.toContain(key);
  });
});
