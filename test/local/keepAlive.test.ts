// The local server's keep-alive outlasts a client that stalls between requests: two requests 12 s apart on one
// socket both answer (with Node's default of 5 s the server closed the socket first, and the second request failed
// with "other side closed"). Real clock, real sockets: what a stalled client's pool sees.
import { once } from 'node:events';
import { type AddressInfo, connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pause } from '../../scripts/lib/poll';
import { errorResponse, jsonResponse } from '../../shared/http/responses';
import { createLocalServer, type HandlerTable, KEEP_ALIVE_MS } from '../../shared/local/httpAdapter';
import { createLogger } from '../../shared/log';

const log = createLogger('test', 'error', () => undefined);
const handlers: HandlerTable = {
  start: async () => jsonResponse(200, { started: true }),
  get: async () => jsonResponse(200, { read: true }),
  fallback: async () => errorResponse(404, 'Not found'),
};
const STALL_MS = 12_000;

let close: (() => void) | undefined;
afterEach(() => close?.());

describe('the local server keep-alive', () => {
  it('keeps an idle socket open past a 12 s client stall, with its headers timeout above it', async () => {
    const server = createLocalServer(handlers, log);
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_MS);
    expect(KEEP_ALIVE_MS).toBeGreaterThanOrEqual(65_000);
    expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    close = () => {
      socket.destroy();
      server.close();
    };
    await once(socket, 'connect');
    let received = '';
    let ended = false;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('end', () => {
      ended = true;
    });
    const request = 'GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';
    const answers = () => received.match(/^HTTP\/1\.1 \d{3}/gm)?.length ?? 0;
    socket.write(request);
    while (answers() < 1) await pause(10);
    await pause(STALL_MS);
    expect(ended).toBe(false);
    socket.write(request);
    while (answers() < 2 && !ended) await pause(10);
    expect(answers()).toBe(2);
    expect(received.match(/^HTTP\/1\.1 404/gm)).toHaveLength(2);
  }, 30_000);
});
