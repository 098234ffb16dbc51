// The webhook sender's guard against server-side request forgery: every forbidden address is refused and never
// connected to. The lookup and the connection are injected: no socket is ever opened to a private address here.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResolvedAddress, SafePoster } from '../../shared/adapters/webhook/SafePoster';
import { AWS_CALLBACK_POLICY, type CallbackPolicy, isPublicAddress } from '../../shared/domain/publicAddress';

const LOCAL: CallbackPolicy = { allowLoopbackHttp: true };
const PUBLIC = '93.184.216.34';

/** A lookup that answers from a table and a connect that only records: neither touches the network. */
const fakeNetwork = (names: Record<string, string[]> = {}) => {
  const connects: string[] = [];
  const lookup = async (hostname: string): Promise<ResolvedAddress[]> =>
    (names[hostname] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  const connect = (options: { host: string }) => {
    connects.push(options.host);
    throw new Error('the test network opens no sockets');
  };
  return { connects, lookup, connect };
};

const FORBIDDEN = [
  '10.0.0.1',
  '10.255.255.254',
  '172.16.0.1',
  '172.31.255.1',
  '192.168.1.1',
  '169.254.169.254',
  '127.0.0.1',
  '100.64.0.1',
  '0.0.0.0',
  '::1',
  'fc00::1',
  'fd12:3456::1',
  'fe80::1',
  '::ffff:10.0.0.1',
  '::ffff:127.0.0.1',
  '::ffff:169.254.169.254',
  '::',
];

describe('which addresses are public', () => {
  it.each(FORBIDDEN)('%s is not', (address) => expect(isPublicAddress(address)).toBe(false));
  it.each([PUBLIC, '8.8.8.8', '2606:4700:4700::1111', '172.32.0.1', '192.169.0.1'])('%s is', (address) =>
    expect(isPublicAddress(address)).toBe(true),
  );
});

describe('refusals before any connection', () => {
  it.each(FORBIDDEN)('https://[%s] (a literal) is refused and never connected to', async (address) => {
    const network = fakeNetwork();
    const host = address.includes(':') ? `[${address}]` : address;
    const outcome = await new SafePoster({ policy: AWS_CALLBACK_POLICY, ...network }).post(
      `https://${host}/hook`,
      {},
      '{}',
    );
    expect(outcome).toEqual({ error: expect.stringMatching(/^refused/) });
    expect(network.connects).toEqual([]);
  });

  it.each(FORBIDDEN)('a name resolving to %s is refused and never connected to', async (address) => {
    const network = fakeNetwork({ 'hooks.example.com': [address] });
    const outcome = await new SafePoster({ policy: AWS_CALLBACK_POLICY, ...network }).post(
      'https://hooks.example.com/hook',
      {},
      '{}',
    );
    expect(outcome).toEqual({ error: 'refused: the callback host resolves to a non-public address' });
    expect(network.connects).toEqual([]);
  });

  it('a name with one private address among public ones is refused whole', async () => {
    const network = fakeNetwork({ 'hooks.example.com': [PUBLIC, '10.1.2.3'] });
    const outcome = await new SafePoster({ policy: AWS_CALLBACK_POLICY, ...network }).post(
      'https://hooks.example.com/hook',
      {},
      '{}',
    );
    expect(outcome).toEqual({ error: 'refused: the callback host resolves to a non-public address' });
    expect(network.connects).toEqual([]);
  });

  it('127.0.0.1 under the AWS settings is refused, over http and https alike', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'https://127.0.0.1:9/hook', 'http://localhost:9/']) {
      const network = fakeNetwork({ localhost: ['127.0.0.1'] });
      const outcome = await new SafePoster({ policy: AWS_CALLBACK_POLICY, ...network }).post(url, {}, '{}');
      expect(outcome).toEqual({ error: expect.stringMatching(/^refused/) });
      expect(network.connects).toEqual([]);
    }
  });

  it('plain http to a public address is refused even when loopback http is allowed', async () => {
    const network = fakeNetwork({ 'hooks.example.com': [PUBLIC] });
    const outcome = await new SafePoster({ policy: LOCAL, ...network }).post(
      'http://hooks.example.com/',
      {},
      '{}',
    );
    expect(outcome).toEqual({ error: 'refused: plain http is allowed to this machine only' });
    expect(network.connects).toEqual([]);
  });

  it('a public name whose connection lands on a private peer (rebinding) gets not one byte', async () => {
    const written: unknown[] = [];
    const connect = () => {
      // A socket that never connects anywhere: it only claims the peer a rebinding resolver would have chosen.
      const socket = new Socket();
      Object.defineProperty(socket, 'remoteAddress', { value: '10.0.0.7' });
      socket.write = ((chunk: unknown) => {
        written.push(chunk);
        return true;
      }) as Socket['write'];
      setImmediate(() => socket.emit('connect'));
      return socket;
    };
    const lookup = async () => [{ address: PUBLIC, family: 4 }];
    const outcome = await new SafePoster({ policy: AWS_CALLBACK_POLICY, lookup, connect }).post(
      'https://hooks.example.com/hook',
      {},
      '{"secret":"payload"}',
    );
    expect(outcome).toEqual({ error: 'refused: connected to a non-public address' });
    expect(written).toEqual([]);
  });
});

describe('what it reads of an answer', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://10.0.0.1/internal' }).end();
      } else if (req.url === '/endless') {
        res.writeHead(200);
        const chunk = Buffer.alloc(16 * 1024, 120);
        const pump = () => {
          while (res.write(chunk)) if (res.writableLength > 1 << 20) break;
        };
        pump();
        res.on('drain', pump);
      } else if (req.url === '/silent') {
        // Never answers.
      } else res.writeHead(429, { 'retry-after': '120' }).end('slow down');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    server.close();
  });

  const connects: string[] = [];
  const poster = (timeoutMs?: number) =>
    new SafePoster({
      policy: LOCAL,
      ...(timeoutMs ? { timeoutMs } : {}),
      connect: (options) => {
        connects.push(options.host);
        if (options.host !== '127.0.0.1') throw new Error('only the loopback receiver may be reached');
        const socket = new Socket();
        return socket.connect(options.port, options.host);
      },
    });

  it('a redirect to a private address is not followed: the answer is the redirect itself', async () => {
    connects.length = 0;
    const outcome = await poster().post(`http://127.0.0.1:${port}/redirect`, {}, '{}');
    expect(outcome).toEqual({ status: 302 });
    expect(connects).toEqual(['127.0.0.1']);
  });

  it('an endless answer is read only so far', async () => {
    const outcome = await poster(5000).post(`http://127.0.0.1:${port}/endless`, {}, '{}');
    expect(outcome).toEqual({ status: 200 });
  });

  it('Retry-After comes back with a 429', async () => {
    const outcome = await poster().post(`http://127.0.0.1:${port}/busy`, {}, '{}');
    expect(outcome).toEqual({ status: 429, retryAfterMs: 120_000 });
  });

  it('a receiver that never answers ends the attempt at the deadline', async () => {
    const outcome = await poster(300).post(`http://127.0.0.1:${port}/silent`, {}, '{}');
    expect(outcome).toEqual({ error: 'no answer within 0.3 s' });
  });
});
