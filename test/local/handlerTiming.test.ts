// The local adapter's benchmark hook: off unless asked for (its path is then an ordinary unknown route), and when on it
// records each handler call's own time and hands the figures out once.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pause } from '../../scripts/lib/poll';
import { errorResponse, jsonResponse } from '../../shared/http/responses';
import {
  createLocalServer,
  HANDLER_TIMING_PATH,
  type HandlerTable,
  type HandlerTimings,
} from '../../shared/local/httpAdapter';
import { createLogger } from '../../shared/log';

const log = createLogger('test', 'error', () => undefined);
const HANDLER_MS = 30;
const handlers: HandlerTable = {
  start: async () => jsonResponse(200, { started: true }),
  get: async () => {
    await pause(HANDLER_MS);
    return jsonResponse(200, { read: true });
  },
  fallback: async () => errorResponse(404, 'Not found'),
};

let close: (() => void) | undefined;
afterEach(() => close?.());

const serve = async (handlerTiming?: boolean) => {
  const server = createLocalServer(handlers, log, handlerTiming === undefined ? {} : { handlerTiming });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

describe('the handler timing hook', () => {
  it('does not exist unless enabled', async () => {
    const baseUrl = await serve();
    const response = await fetch(`${baseUrl}${HANDLER_TIMING_PATH}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Not found' });
  });

  it('records each handler call and hands the figures out once', async () => {
    const baseUrl = await serve(true);
    const before = Date.now();
    for (let index = 0; index < 3; index++)
      expect((await fetch(`${baseUrl}/api/spam-check/abc`)).status).toBe(200);
    await fetch(`${baseUrl}/api/spam-check/start`, { method: 'POST' });
    const timings = (await (await fetch(`${baseUrl}${HANDLER_TIMING_PATH}`)).json()) as HandlerTimings;
    expect(timings.get).toHaveLength(3);
    expect(timings.start).toHaveLength(1);
    expect(timings.fallback).toHaveLength(0);
    for (const [at, ms] of timings.get) {
      expect(at).toBeGreaterThanOrEqual(before);
      expect(ms).toBeGreaterThanOrEqual(HANDLER_MS - 1);
    }
    const again = (await (await fetch(`${baseUrl}${HANDLER_TIMING_PATH}`)).json()) as HandlerTimings;
    expect(again).toEqual({ start: [], get: [], fallback: [] });
  });
});
