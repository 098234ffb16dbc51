// The delay proxy the bench puts between the scanner and Dovecot: bytes arrive intact and in order, each way half a
// round trip late (on an injected clock, and as measured against the same path without it), and a close on either
// side reaches the other.
import { once } from 'node:events';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type DelayProxy, type ProxyTimer, startDelayProxy } from '../../scripts/lib/delayProxy';
import { pause, pollUntil } from '../../scripts/lib/poll';

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

const listen = async (onSocket: (socket: Socket) => void): Promise<{ server: Server; port: number }> => {
  const server = createServer({ allowHalfOpen: true }, onSocket);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  open.push({ close: () => server.close() });
  return { server, port: address.port };
};

const proxyTo = async (
  port: number,
  rest: { rttMs?: number; maxHeldBytes?: number; timer?: ProxyTimer } = {},
) => {
  const proxy = await startDelayProxy({ target: { host: '127.0.0.1', port }, ...rest });
  open.push(proxy);
  return proxy;
};

const dial = async (proxy: DelayProxy | { port: number }) => {
  const socket = createConnection({ host: '127.0.0.1', port: proxy.port, allowHalfOpen: true });
  await once(socket, 'connect');
  open.push({ close: () => socket.destroy() });
  return socket;
};

const collect = (socket: Socket) => {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return () => Buffer.concat(chunks);
};

/** A clock that moves only when the test says, and timers that run only when it has moved far enough. */
const manualTimer = () => {
  let now = 0;
  const waiting: { at: number; ms: number; run: () => void }[] = [];
  const timer: ProxyTimer = {
    now: () => now,
    after: (ms, run) => void waiting.push({ at: now + ms, ms, run }),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const entry of waiting.splice(0)) {
      if (entry.at <= now) entry.run();
      else waiting.push(entry);
    }
  };
  return { timer, waiting, advance };
};

describe('the delay proxy', () => {
  it('delivers every byte once and in order both ways, with a held-bytes bound far below the traffic', async () => {
    const echo = await listen((socket) => socket.pipe(socket));
    const proxy = await proxyTo(echo.port, { rttMs: 4, maxHeldBytes: 16 * 1024 });
    const client = await dial(proxy);
    const received = collect(client);
    const sent = Buffer.alloc(2 * 1024 * 1024);
    for (let i = 0; i < sent.length; i += 1) sent[i] = (i * 7 + (i >> 11)) & 0xff;
    for (let offset = 0; offset < sent.length; offset += 1000 + (offset % 5000)) {
      client.write(sent.subarray(offset, Math.min(sent.length, offset + 1000 + (offset % 5000))));
    }
    const got = await pollUntil(received, (bytes) => bytes.length >= sent.length, {
      timeoutMs: 20_000,
      intervalMs: 20,
    });
    expect(got.length).toBe(sent.length);
    expect(got.equals(sent)).toBe(true);
  });

  it('holds each chunk for half the round trip, each way, on the injected clock', async () => {
    const upstreamSeen: Buffer[] = [];
    let upstreamSocket: Socket | undefined;
    const upstream = await listen((socket) => {
      upstreamSocket = socket;
      socket.on('data', (chunk: Buffer) => upstreamSeen.push(chunk));
    });
    const { timer, waiting, advance } = manualTimer();
    const proxy = await proxyTo(upstream.port, { rttMs: 40, timer });
    const client = await dial(proxy);
    const received = collect(client);

    client.write('a1 NOOP\r\n');
    await pollUntil(
      () => waiting.length,
      (n) => n === 1,
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    expect(waiting.map((entry) => entry.ms)).toEqual([20]);
    advance(19);
    await pause(20);
    expect(upstreamSeen).toHaveLength(0);
    advance(1);
    await pollUntil(
      () => upstreamSeen.length,
      (n) => n === 1,
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    expect(Buffer.concat(upstreamSeen).toString()).toBe('a1 NOOP\r\n');

    upstreamSocket?.write('a1 OK done\r\n');
    await pollUntil(
      () => waiting.length,
      (n) => n === 1,
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    expect(waiting.map((entry) => entry.ms)).toEqual([20]);
    await pause(20);
    expect(received().length).toBe(0);
    advance(20);
    await pollUntil(received, (bytes) => bytes.length > 0, { timeoutMs: 5_000, intervalMs: 5 });
    expect(received().toString()).toBe('a1 OK done\r\n');
  });

  it('adds at least one round trip to an exchange, measured beside the same exchange without it', async () => {
    const echo = await listen((socket) => socket.pipe(socket));
    const rttMs = 120;
    const proxy = await proxyTo(echo.port, { rttMs });
    const exchange = async (port: number) => {
      const socket = await dial({ port });
      const started = performance.now();
      socket.write('x');
      await once(socket, 'data');
      const took = performance.now() - started;
      socket.destroy();
      return took;
    };
    const direct = await exchange(echo.port);
    const delayed = await exchange(proxy.port);
    // Timers never fire early by more than their millisecond rounding; late is the machine, not the proxy.
    expect(delayed - direct).toBeGreaterThanOrEqual(rttMs - 2);
    expect(delayed / rttMs).toBeGreaterThanOrEqual(0.98);
  });

  it('passes an orderly end each way after the bytes sent before it, and closes both sides', async () => {
    let upstreamSocket: Socket | undefined;
    const upstreamGot: Buffer[] = [];
    const upstream = await listen((socket) => {
      upstreamSocket = socket;
      socket.on('data', (chunk: Buffer) => upstreamGot.push(chunk));
    });
    const proxy = await proxyTo(upstream.port, { rttMs: 10 });
    const client = await dial(proxy);
    const received = collect(client);
    await pollUntil(
      () => upstreamSocket,
      (socket) => socket !== undefined,
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    const server = upstreamSocket as Socket;
    const serverEnded = once(server, 'end');
    client.end('a9 LOGOUT\r\n');
    await serverEnded;
    expect(Buffer.concat(upstreamGot).toString()).toBe('a9 LOGOUT\r\n');
    // The server still answers after the client's end (half-close), then ends too: the client gets both.
    const clientClosed = once(client, 'close');
    server.end('* BYE\r\na9 OK\r\n');
    await clientClosed;
    expect(received().toString()).toBe('* BYE\r\na9 OK\r\n');
  });

  it('closes the client when the server goes away abruptly, and every connection when it stops', async () => {
    const servers: Socket[] = [];
    const upstream = await listen((socket) => {
      servers.push(socket);
      socket.on('error', () => undefined);
      socket.resume();
    });
    const proxy = await proxyTo(upstream.port, { rttMs: 10 });
    const first = await dial(proxy);
    first.on('error', () => undefined);
    collect(first);
    await pollUntil(
      () => servers.length,
      (n) => n === 1,
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    const firstEnded = once(first, 'end');
    servers[0]?.resetAndDestroy();
    await firstEnded;

    const second = await dial(proxy);
    second.on('error', () => undefined);
    collect(second);
    await pollUntil(
      () => servers.length,
      (n) => n === 2,
      { timeoutMs: 5_000, intervalMs: 5 },
    );
    const secondEnded = once(second, 'end');
    const serverEnded = once(servers[1] as Socket, 'end');
    await proxy.close();
    await Promise.all([secondEnded, serverEnded]);
    expect(proxy.accepted()).toBe(2);
  });

  it('forwards to loopback only', async () => {
    await expect(startDelayProxy({ target: { host: '10.0.0.1', port: 993 } })).rejects.toThrow(
      /loopback only/,
    );
  });
});
