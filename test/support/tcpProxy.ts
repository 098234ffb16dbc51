// A loopback TCP proxy that a test puts in front of a real server to break the network on purpose: refuse
// connections, accept them but never let the server's greeting through, cut them at a chosen point of the
// server's output, hold a client command until the test lets it go, or drop everything at once.
import { once } from 'node:events';
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';

/** Cut a connection `bytes` bytes after the `occurrence`-th (default first) `after` in the server's output. */
export interface CutRule {
  after: string;
  occurrence?: number;
  bytes: number;
}

export interface ProxyStats {
  /** Connections accepted from clients. */
  accepted: number;
  /** Connections accepted while the greeting was withheld (never connected to the server). */
  silenced: number;
  /** Connections cut by a CutRule. */
  cut: number;
  /** Connections ended by dropAll(). */
  dropped: number;
  /** IMAP commands the clients sent (lines starting with a tag and a verb; IDLE's DONE is not a command). */
  commands: number;
}

interface Link {
  client: Socket;
  server?: Socket;
  /** Times the cut rule's pattern was seen, and the end of the server output already scanned, per connection. */
  matches: number;
  tail: string;
  /** Bytes still to forward before the cut, once the pattern has been seen often enough. */
  budget?: number;
  /** Client bytes kept back while a client hold applies to this connection. */
  heldClient?: Buffer[];
}

export interface TcpProxy {
  readonly port: number;
  readonly stats: ProxyStats;
  /** Connections open right now, and how many of them are silenced (accepted, no server behind them). */
  open(): { all: number; silenced: number };
  /** Stops listening: new connections are refused (ECONNREFUSED); open ones carry on. */
  refuse(): Promise<void>;
  /** New connections are accepted and then left waiting: no greeting, no byte from the server, ever. */
  withholdGreeting(): void;
  /** Cuts every connection (now open or opened later) at the rule's point, until heal(). */
  cutServer(rule: CutRule): void;
  /**
   * Holds the client's bytes on the first connection that sends `pattern` (from that chunk on) and resolves once
   * it did; releaseClient() forwards them. The server sees nothing of the held command meanwhile.
   */
  holdClient(pattern: string): Promise<void>;
  releaseClient(): void;
  /** Resets every open connection (RST), as a NAT timeout or a dying server would. */
  dropAll(): void;
  /** Back to a plain proxy for new connections: listening, greeting passed on, no cut rule. */
  heal(): Promise<void>;
  close(): Promise<void>;
}

export const startTcpProxy = async (target: { host: string; port: number }): Promise<TcpProxy> => {
  const links = new Set<Link>();
  const stats: ProxyStats = { accepted: 0, silenced: 0, cut: 0, dropped: 0, commands: 0 };
  let silent = false;
  let rule: CutRule | undefined;
  let clientHold: { pattern: string; hit: () => void; link?: Link } | undefined;
  let server: Server | undefined;
  let port = 0;

  const end = (link: Link) => {
    links.delete(link);
    link.client.destroy();
    link.server?.destroy();
  };

  const reset = (link: Link) => {
    links.delete(link);
    link.client.resetAndDestroy();
    link.server?.destroy();
  };

  const cutAfter = (link: Link, chunk: Buffer, keep: number) => {
    stats.cut++;
    links.delete(link);
    link.server?.destroy();
    link.client.write(chunk.subarray(0, Math.max(0, keep)), () => link.client.resetAndDestroy());
  };

  // Forwards one chunk of server output, or the part of it before the cut.
  const fromServer = (link: Link, chunk: Buffer) => {
    if (rule && link.budget === undefined) {
      const text = link.tail + chunk.toString('latin1');
      let from = 0;
      for (;;) {
        const at = text.indexOf(rule.after, from);
        if (at < 0) break;
        from = at + rule.after.length;
        link.matches++;
        if (link.matches === (rule.occurrence ?? 1)) {
          link.budget = rule.bytes + from - link.tail.length;
          break;
        }
      }
      link.tail = text.slice(-(rule.after.length - 1) || text.length);
      if (link.budget !== undefined) {
        // budget counts from the start of this chunk here; from the next chunk on it counts what is left.
        if (link.budget <= chunk.length) return cutAfter(link, chunk, link.budget);
        link.budget -= chunk.length;
        link.client.write(chunk);
        return;
      }
    } else if (rule && link.budget !== undefined) {
      if (link.budget <= chunk.length) return cutAfter(link, chunk, link.budget);
      link.budget -= chunk.length;
    }
    link.client.write(chunk);
  };

  const fromClient = (link: Link, chunk: Buffer) => {
    for (const line of chunk.toString('latin1').split('\r\n'))
      if (/^[A-Za-z0-9.]+ [A-Za-z]/.test(line)) stats.commands++;
    if (clientHold && !clientHold.link && chunk.toString('latin1').includes(clientHold.pattern)) {
      clientHold.link = link;
      link.heldClient = [];
      clientHold.hit();
    }
    if (link.heldClient) link.heldClient.push(chunk);
    else link.server?.write(chunk);
  };

  const onConnection = (client: Socket) => {
    stats.accepted++;
    const link: Link = { client, matches: 0, tail: '' };
    links.add(link);
    client.on('error', () => end(link));
    client.on('close', () => end(link));
    if (silent) {
      stats.silenced++;
      return;
    }
    const upstream = createConnection(target);
    link.server = upstream;
    upstream.on('data', (chunk: Buffer) => fromServer(link, chunk));
    upstream.on('error', () => end(link));
    upstream.on('close', () => end(link));
    client.on('data', (chunk: Buffer) => fromClient(link, chunk));
  };

  const listen = async () => {
    server = createServer(onConnection);
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  };

  const stopListening = async () => {
    const listening = server;
    server = undefined;
    if (!listening) return;
    // close() calls back only once every connection has ended; the listening socket itself is gone at once.
    listening.close();
    await new Promise((resolve) => setImmediate(resolve));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    stats,
    open: () => ({ all: links.size, silenced: [...links].filter((link) => !link.server).length }),
    refuse: stopListening,
    withholdGreeting: () => {
      silent = true;
    },
    cutServer: (next) => {
      rule = next;
      for (const link of links) {
        link.matches = 0;
        link.tail = '';
        delete link.budget;
      }
    },
    holdClient: (pattern) =>
      new Promise<void>((resolve) => {
        clientHold = { pattern, hit: resolve };
      }),
    releaseClient: () => {
      const link = clientHold?.link;
      clientHold = undefined;
      if (!link?.heldClient) return;
      const held = link.heldClient;
      delete link.heldClient;
      for (const chunk of held) link.server?.write(chunk);
    },
    dropAll: () => {
      for (const link of [...links]) {
        stats.dropped++;
        reset(link);
      }
    },
    heal: async () => {
      silent = false;
      rule = undefined;
      if (!server) await listen();
    },
    close: async () => {
      await stopListening();
      for (const link of [...links]) end(link);
    },
  };
};
