// Owns POSTing a webhook without being turned against the service's own network: https only (plain http to this
// machine only when allowed), every resolved address public, the socket's actual peer checked before a byte is
// written, no redirect followed, one deadline for the whole exchange, and at most a few KB of the answer read.

import { lookup as dnsLookup } from 'node:dns/promises';
import { request } from 'node:http';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { type CallbackPolicy, isLoopbackAddress, mayConnectTo } from '../../domain/publicAddress';
import { startTimer, type Timer } from '../../domain/timer';
import type { PostOutcome, WebhookPoster } from '../../webhooks';
import { retryAfterMsOf } from '../../webhooks';

export interface ResolvedAddress {
  address: string;
  family: number;
}

export interface PosterOptions {
  policy: CallbackPolicy;
  /** Every address a name resolves to; the system resolver unless a test injects one. */
  lookup?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Opens the TCP connection to a vetted address; net.connect unless a test injects one. */
  connect?: (options: { host: string; port: number; family: number }) => Socket;
  now?: () => number;
  timeoutMs?: number;
  maxBodyBytes?: number;
  /** The CA a test's own TLS receiver is signed by, trusted instead of Node's roots; never set in service. */
  ca?: string;
}

const WEBHOOK_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 4096;

/** What one read of the receiver's socket takes at most: the answer is read in steps of this, only as it is used. */
export const READ_STEP_BYTES = 4096;

type Connect = NonNullable<PosterOptions['connect']>;

/**
 * The connection, read READ_STEP_BYTES at a time (a socket's own reads take 64 KB) and only while what was read is
 * used, and never more than `limit` bytes in all: each read's buffer is the room left, and at the limit reading
 * stops and the exchange sees the end of the stream. Plain HTTP passes the answer cap (head and body together);
 * TLS passes no limit (its records, certificates among them, must be read whole), so there a step or two more.
 * `raw` is the TCP socket (its peer is checked); `stream` is what TLS or HTTP reads and writes through.
 */
const readInSteps = (
  connect: Connect,
  options: { host: string; port: number; family: number },
  limit: number,
) => {
  let taken = 0;
  let ended = false;
  const end = () => {
    if (!ended) stream.push(null);
    ended = true;
  };
  const stream: Duplex = new Duplex({
    readableHighWaterMark: READ_STEP_BYTES,
    read: () => {
      if (taken < limit) raw.resume();
    },
    write: (chunk: Buffer, _encoding, done) => raw.write(chunk, done),
    final: (done) => {
      raw.end();
      done();
    },
    destroy: (error, done) => {
      raw.destroy();
      done(error);
    },
  });
  const take = (chunk: Buffer): boolean => {
    if (ended) return false;
    taken += chunk.length;
    const wanted = stream.push(chunk);
    if (taken < limit) return wanted;
    end();
    return false;
  };
  const raw = connect({
    ...options,
    onread: {
      // Called before each read: never more room than the limit leaves (one byte when none, never read).
      buffer: () => Buffer.alloc(Math.max(1, Math.min(READ_STEP_BYTES, limit - taken))),
      callback: (bytes: number, read: Buffer) => take(Buffer.from(read.subarray(0, bytes))),
    },
  } as Parameters<Connect>[0]);
  // A socket made without `onread` (an injected one) reads as ever: its chunks go the same way.
  raw.on('data', (chunk: Buffer) => {
    if (!take(chunk)) raw.pause();
  });
  raw.on('end', end);
  raw.on('error', (error) => stream.destroy(error));
  return { raw, stream };
};

const systemLookup = async (hostname: string): Promise<ResolvedAddress[]> =>
  dnsLookup(hostname, { all: true, verbatim: true });

class Refused extends Error {}

const onceEvent = (socket: Socket, event: string) =>
  new Promise<void>((resolve, reject) => {
    socket.once(event, () => resolve());
    socket.once('error', reject);
  });

const errorText = (error: unknown): string => {
  if (error instanceof Refused) return error.message;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `connection failed: ${code}` : 'connection failed';
};

export class SafePoster implements WebhookPoster {
  constructor(private readonly options: PosterOptions) {}

  async post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome> {
    const sockets: Socket[] = [];
    let timer: Timer | undefined;
    const timeoutMs = this.options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    const deadline = new Promise<PostOutcome>((resolve) => {
      timer = startTimer(timeoutMs, () => resolve({ error: `no answer within ${timeoutMs / 1000} s` }));
    });
    try {
      return await Promise.race([this.exchange(url, headers, body, sockets), deadline]);
    } catch (error) {
      return { error: errorText(error) };
    } finally {
      timer?.cancel();
      for (const socket of sockets) socket.destroy();
    }
  }

  private async exchange(
    url: string,
    headers: Record<string, string>,
    body: string,
    sockets: Socket[],
  ): Promise<PostOutcome> {
    const { policy } = this.options;
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    if (!secure && !(target.protocol === 'http:' && policy.allowLoopbackHttp))
      throw new Refused('refused: the callback URL must use https');
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const family = isIP(host);
    const addresses =
      family !== 0 ? [{ address: host, family }] : await (this.options.lookup ?? systemLookup)(host);
    // Every address must pass, not just the first: a name that resolves to one private address is refused whole.
    if (addresses.length === 0) throw new Refused('refused: the callback host has no address');
    if (addresses.some((resolved) => !mayConnectTo(resolved.address, policy)))
      throw new Refused('refused: the callback host resolves to a non-public address');
    if (!secure && !addresses.every((resolved) => isLoopbackAddress(resolved.address)))
      throw new Refused('refused: plain http is allowed to this machine only');
    const chosen = addresses[0] as ResolvedAddress;
    const port = Number(target.port) || (secure ? 443 : 80);
    const maxBytes = this.options.maxBodyBytes ?? MAX_ANSWER_BYTES;
    const { raw, stream } = readInSteps(
      this.options.connect ?? netConnect,
      { host: chosen.address, port, family: chosen.family },
      secure ? Number.POSITIVE_INFINITY : maxBytes,
    );
    sockets.push(raw);
    await onceEvent(raw, 'connect');
    // The peer actually connected to, before anything is written: what a rebinding resolver cannot fake.
    if (
      !mayConnectTo(raw.remoteAddress ?? '', policy) ||
      (!secure && !isLoopbackAddress(raw.remoteAddress ?? ''))
    )
      throw new Refused('refused: connected to a non-public address');
    let socket: Duplex = stream;
    if (secure) {
      const tls = tlsConnect({
        socket: stream,
        servername: family === 0 ? host : undefined,
        ALPNProtocols: ['http/1.1'],
        ...(this.options.ca === undefined ? {} : { ca: this.options.ca }),
      });
      sockets.push(tls);
      await onceEvent(tls, 'secureConnect');
      socket = tls;
    }
    return this.send(target, socket, headers, body);
  }

  private send(
    target: URL,
    socket: Duplex,
    headers: Record<string, string>,
    body: string,
  ): Promise<PostOutcome> {
    const maxBytes = this.options.maxBodyBytes ?? MAX_ANSWER_BYTES;
    return new Promise<PostOutcome>((resolve, reject) => {
      const req = request(
        {
          createConnection: () => socket as Socket,
          method: 'POST',
          path: `${target.pathname}${target.search}`,
          headers: {
            ...headers,
            host: target.host,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'inbox-placement-webhook',
          },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          const retryHeader = res.headers['retry-after'];
          const retryAfterMs = retryAfterMsOf(
            typeof retryHeader === 'string' ? retryHeader : undefined,
            (this.options.now ?? Date.now)(),
          );
          let read = 0;
          const done = () => resolve(retryAfterMs === undefined ? { status } : { status, retryAfterMs });
          // The answer is read only so far: its content decides nothing, and a receiver may send without end.
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > maxBytes) {
              res.destroy();
              done();
            }
          });
          res.on('end', done);
          res.on('error', () => done());
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}
