// A loopback HTTP proxy in front of dynalite that a test controls: pass requests through, refuse connections, accept
// them and never answer, or answer the next requests with a DynamoDB throttling error.
import { once } from 'node:events';
import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type ProxyMode = 'up' | 'refuse' | 'hang';
export type ThrottleError = 'ProvisionedThroughputExceededException' | 'ThrottlingException';

export interface DynamoProxy {
  endpoint: string;
  mode(): ProxyMode;
  /** 'refuse' closes the listener and every connection; 'hang' accepts and holds requests; 'up' serves again. */
  setMode(mode: ProxyMode): Promise<void>;
  /** Answers the next `count` requests with HTTP 400 and this DynamoDB error, as DynamoDB does when throttling. */
  throttle(count: number, error: ThrottleError): void;
  /** Requests seen, by X-Amz-Target operation and by what the proxy did with them. */
  stats: { forwarded: number; throttled: number; held: number; byOperation: Record<string, number> };
  close(): Promise<void>;
}

export const startDynamoProxy = async (target: string): Promise<DynamoProxy> => {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  let mode: ProxyMode = 'up';
  let throttleLeft = 0;
  let throttleError: ThrottleError = 'ThrottlingException';
  const stats: DynamoProxy['stats'] = { forwarded: 0, throttled: 0, held: 0, byOperation: {} };
  const sockets = new Set<Socket>();
  const held = new Set<ServerResponse>();

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  };

  const server = createServer((req, res) => {
    const operation =
      String(req.headers['x-amz-target'] ?? 'none')
        .split('.')
        .pop() ?? 'none';
    stats.byOperation[operation] = (stats.byOperation[operation] ?? 0) + 1;
    if (mode === 'hang') {
      stats.held++;
      held.add(res);
      req.resume();
      return;
    }
    if (throttleLeft > 0) {
      throttleLeft--;
      stats.throttled++;
      req.resume();
      const body = JSON.stringify({
        __type: `com.amazonaws.dynamodb.v20120810#${throttleError}`,
        message: 'Rate of requests exceeds the allowed throughput.',
      });
      res.writeHead(400, {
        'content-type': 'application/x-amz-json-1.0',
        'x-amzn-requestid': `proxy-${stats.throttled}`,
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
      return;
    }
    stats.forwarded++;
    forward(req, res);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const dropAll = () => {
    for (const res of held) res.destroy();
    held.clear();
    for (const socket of sockets) socket.destroy();
  };

  const setMode = async (next: ProxyMode) => {
    if (next === mode) return;
    const previous = mode;
    mode = next;
    if (next === 'refuse') {
      dropAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return;
    }
    // Held requests end as a dropped connection, as when a network path comes back with its old flows gone.
    dropAll();
    if (previous === 'refuse') {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
    }
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    mode: () => mode,
    setMode,
    throttle: (count, error) => {
      throttleLeft = count;
      throttleError = error;
    },
    stats,
    close: async () => {
      dropAll();
      if (mode !== 'refuse') await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
};
