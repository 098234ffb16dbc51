// A counting TCP proxy in front of an IMAP server: it forwards bytes both ways untouched and counts, on the server's
// side of the client, every tagged command line the client sends (logins included; IDLE's DONE is not a command).
// The detection benchmark points one account at it, so what that account costs the provider is counted outside the
// scanner, where nothing the scanner believes about itself can hide a command.
import { once } from 'node:events';
import { createConnection, createServer, type Socket } from 'node:net';

/** A client line that starts a command: a tag, a space, a command name (RFC 9051 §2.2.1). */
const TAGGED = /^[A-Za-z0-9.]+ ([A-Za-z]+)/;
/** A line that ends announcing a synchronising or non-synchronising literal: the next `n` bytes are data. */
const LITERAL = /\{(\d+)\+?\}$/;

export interface CountedCommand {
  at: number;
  name: string;
}

export interface ImapCounter {
  port: number;
  /** Every command seen so far, in order, with the wall-clock time it passed the proxy. */
  commands: CountedCommand[];
  connections: number;
  close(): Promise<void>;
}

/** Counts the commands in one client's byte stream, skipping literal data so a message body is not read as commands. */
export const commandCounter = (onCommand: (name: string) => void) => {
  let buffered = '';
  let literalLeft = 0;
  return (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    for (;;) {
      if (literalLeft > 0) {
        const skipped = Math.min(literalLeft, buffered.length);
        literalLeft -= skipped;
        buffered = buffered.slice(skipped);
        if (literalLeft > 0) return;
      }
      const end = buffered.indexOf('\r\n');
      if (end < 0) return;
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      // Only a line's start can be a command: the rest of a line after a literal is not.
      const name = TAGGED.exec(line)?.[1];
      if (name) onCommand(name.toUpperCase());
      literalLeft = Number(LITERAL.exec(line)?.[1] ?? 0);
    }
  };
};

/** Listens on a free loopback port and forwards each connection to `target`. */
export const startImapCounter = async (target: { host: string; port: number }): Promise<ImapCounter> => {
  const commands: CountedCommand[] = [];
  const sockets = new Set<Socket>();
  const counter: ImapCounter = { port: 0, commands, connections: 0, close: async () => undefined };
  const server = createServer((client) => {
    counter.connections++;
    const upstream = createConnection(target);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    const count = commandCounter((name) => commands.push({ at: Date.now(), name }));
    client.on('data', (chunk: Buffer) => {
      count(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  counter.port = typeof address === 'object' && address ? address.port : 0;
  counter.close = async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  };
  return counter;
};
