// Owns the delay proxy: a TCP proxy on loopback that holds each chunk, each way, for half a round trip, so the bench
// and the tests see a provider's distance (a login's round trips, TLS's handshake) on a machine where there is none.
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/** The one way the proxy waits: real timers by default, an injected one in tests. */
export interface ProxyTimer {
  now(): number;
  after(ms: number, run: () => void): void;
}

export interface DelayProxyOptions {
  /** Where the proxy forwards: a loopback address only. */
  target: { host: string; port: number };
  /** The added round trip in milliseconds, half each way (default 40, as to a provider's nearest region). */
  rttMs?: number;
  /** Bytes held per direction before the proxy stops reading that side (default 1 MiB). */
  maxHeldBytes?: number;
  timer?: ProxyTimer;
}

export interface DelayProxy {
  host: string;
  port: number;
  rttMs: number;
  /** Connections accepted since the start, open or closed. */
  accepted(): number;
  /** Stops listening and closes every connection, both sides. */
  close(): Promise<void>;
}

const realTimer: ProxyTimer = {
  now: () => performance.now(),
  after: (ms, run) => void setTimeout(run, ms),
};

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/;

/** One direction of one connection: chunks leave in arrival order, each half a round trip after it came in. */
const delayedPipe = (from: Socket, to: Socket, halfMs: number, maxHeld: number, timer: ProxyTimer) => {
  const queue: { due: number; chunk: Buffer | 'end' }[] = [];
  let held = 0;
  let scheduled = false;

  const resumeIfRoom = () => {
    if (from.isPaused() && held + to.writableLength <= maxHeld / 2) from.resume();
  };
  const flush = () => {
    scheduled = false;
    const now = timer.now();
    while (queue.length > 0 && (queue[0]?.due ?? 0) <= now) {
      const next = queue.shift();
      if (next === undefined || to.destroyed) break;
      if (next.chunk === 'end') {
        to.end();
        continue;
      }
      held -= next.chunk.length;
      to.write(next.chunk);
    }
    resumeIfRoom();
    schedule();
  };
  const schedule = () => {
    const head = queue[0];
    if (scheduled || head === undefined) return;
    scheduled = true;
    timer.after(Math.max(0, head.due - timer.now()), flush);
  };

  from.on('data', (chunk: Buffer) => {
    queue.push({ due: timer.now() + halfMs, chunk });
    held += chunk.length;
    if (held + to.writableLength > maxHeld) from.pause();
    schedule();
  });
  // The end travels like data: the far side sees it after everything sent before it, half a round trip late.
  from.on('end', () => {
    queue.push({ due: timer.now() + halfMs, chunk: 'end' });
    schedule();
  });
  to.on('drain', resumeIfRoom);
};

export const startDelayProxy = async (options: DelayProxyOptions): Promise<DelayProxy> => {
  const { target, rttMs = 40, maxHeldBytes = 1024 * 1024, timer = realTimer } = options;
  if (!LOOPBACK.test(target.host)) throw new Error('the delay proxy forwards to loopback only');
  if (!(rttMs >= 0) || !Number.isFinite(rttMs))
    throw new Error('the delay proxy needs a round trip of 0 ms or more');
  const sockets = new Set<Socket>();
  let accepted = 0;

  const server = createServer({ allowHalfOpen: true }, (client) => {
    accepted += 1;
    const upstream = connect({ host: target.host, port: target.port, allowHalfOpen: true });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      // Either side failing, or going away without an orderly end, closes both: a half-dead pair would only hold a
      // descriptor. An orderly end travels through the pipe instead, after the bytes sent before it.
      socket.on('error', () => closeBoth());
      socket.on('close', (hadError) => {
        sockets.delete(socket);
        if (hadError || !socket.readableEnded) closeBoth();
      });
    }
    let closing = false;
    const closeBoth = () => {
      if (closing) return;
      closing = true;
      client.destroy();
      upstream.destroy();
    };
    delayedPipe(client, upstream, rttMs / 2, maxHeldBytes, timer);
    delayedPipe(upstream, client, rttMs / 2, maxHeldBytes, timer);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    rttMs,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
};
