// Calls the API's Lambda handlers in this process, with the API Gateway (v2) event the local adapter would build for
// the same request, but without Node's HTTP parser or its limits: what a handler gets from API Gateway.
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createHandler as createFallback } from '../../functions/fallback';
import { createHandler as createGet } from '../../functions/get';
import { createHandler as createStart } from '../../functions/start';
import type { ApiDeps } from '../../shared/composition/apiDeps';
import { toEvent } from '../../shared/local/httpAdapter';
import { validateResponse } from './openapi';
import type { ApiResponse } from './testService';

export type InProcessApi = (
  method: string,
  path: string,
  options?: { headers?: Record<string, string | string[]>; body?: string | Buffer },
) => Promise<ApiResponse>;

export const inProcessApi = (deps: ApiDeps): InProcessApi => {
  const handlers = { start: createStart(deps), get: createGet(deps), fallback: createFallback(deps) };
  return async (method, path, options = {}) => {
    const rawHeaders = Object.entries(options.headers ?? {}).flatMap(([name, value]) =>
      (Array.isArray(value) ? value : [value]).flatMap((one) => [name, one]),
    );
    const request = {
      url: path,
      method,
      rawHeaders,
      httpVersion: '1.1',
      socket: { remoteAddress: '127.0.0.1' },
    } as unknown as IncomingMessage;
    const body = options.body === undefined ? Buffer.alloc(0) : Buffer.from(options.body);
    const { event, target } = toEvent(request, body, 'in-process', new Date());
    const result = (await handlers[target](event, {
      awsRequestId: 'in-process',
      getRemainingTimeInMillis: () => 30_000,
    } as Context)) as APIGatewayProxyStructuredResultV2;
    const status = result.statusCode ?? 200;
    const text = result.body ?? '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
    );
    validateResponse(method, path, status, parsed, headers);
    return { status, headers, body: parsed, text };
  };
};
