// Owns a scripted IMAP4rev1 server for protocol-level tests: a real TCP server on 127.0.0.1 that speaks as much
// IMAP as imapflow and the scanner use, answers from per-test folders and messages, behaves according to the
// capabilities it is given (LIST-STATUS, WITHIN, SPECIAL-USE, X-GM-EXT-1, AUTH=…), refuses the rest with BAD and
// records every command; a test may deliver a message while clients are connected (told by EXISTS, or NOTIFY). One server stands in for any provider; scriptedGmailServer.ts is Gmail as a configuration of it.
// This module owns the server and its connections (reading lines and literals); scriptedImapCommands.ts answers.
//
// It listens in plain text on loopback: the connector needs no TLS there (transportSecurity), so a test points a
// provider preset's 993/TLS settings at this host and port with `secure: false` instead; given a key and
// certificate, it speaks implicit TLS (the bench's simulated providers, a real provider's wire).
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { commandsFor } from './scriptedImapCommands';
import type {
  ScriptedImap,
  ScriptedImapOptions,
  ScriptedMessage,
  ScriptedSession,
} from './scriptedImapShapes';
import { quote, tokenize } from './scriptedImapSyntax';

export type {
  ScriptedFolder,
  ScriptedImap,
  ScriptedImapOptions,
  ScriptedMessage,
  ScriptedTab,
} from './scriptedImapShapes';

/** The header block of the test newsletter numbered `uid` as delivered to `to`, below the given trace lines
 * (Received:, Delivered-To:, a provider's stamps). */
export const newsletterHeaders = (uid: number, to: string, trace: string[]) =>
  [
    ...trace,
    'From: Sender <news@sender.example>',
    `To: ${to}`,
    `Subject: Placement test ${uid}`,
    `Message-ID: <${uid}.placement@sender.example>`,
    '',
  ].join('\r\n');

export const startScriptedImap = async (options: ScriptedImapOptions): Promise<ScriptedImap> => {
  const sockets = new Set<Socket>();
  const sessions = new Set<ScriptedSession>();
  const close = async () => {
    for (const socket of sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  };
  const deliver = (path: string, message: ScriptedMessage) => {
    const folder = options.folders.find((candidate) => candidate.path === path);
    if (!folder) throw new Error(`no folder ${path}`);
    folder.messages.push(message);
    for (const session of sessions) session.announce?.(folder);
  };
  const imap: ScriptedImap = { host: '127.0.0.1', port: 0, commands: [], close, deliver };

  const serve = (socket: Socket) => {
    sockets.add(socket);
    // Untagged lines and the tagged reply go out as separate writes; Nagle would hold the second for an ACK.
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let input = Buffer.alloc(0);
    let partial = '';
    let literal: number | undefined;
    const send = (...lines: string[]) => socket.write(lines.map((line) => `${line}\r\n`).join(''));
    const session: ScriptedSession = {
      authenticated: false,
      selected: undefined,
      saslReply: undefined,
      send,
      end: () => socket.end(),
    };
    const run = commandsFor(options, imap, session);
    sessions.add(session);
    socket.on('close', () => sessions.delete(session));
    // Lines end in CRLF; a `{n}` literal (synchronizing, or `{n+}` under LITERAL+/LITERAL-) is read as n raw bytes.
    const drain = () => {
      for (;;) {
        if (literal !== undefined) {
          if (input.length < literal) return;
          partial += quote(input.subarray(0, literal).toString('latin1'));
          input = input.subarray(literal);
          literal = undefined;
          continue;
        }
        const end = input.indexOf('\r\n');
        if (end === -1) return;
        const line = input.subarray(0, end).toString('latin1');
        input = input.subarray(end + 2);
        if (session.saslReply) {
          const reply = session.saslReply;
          session.saslReply = undefined;
          reply(line);
          continue;
        }
        const marker = /\{(\d+)(\+?)\}$/.exec(line);
        if (marker) {
          partial += line.slice(0, marker.index);
          literal = Number(marker[1]);
          if (!marker[2]) send('+ go ahead');
          continue;
        }
        const whole = partial + line;
        partial = '';
        const space = whole.indexOf(' ');
        const text = space === -1 ? '' : whole.slice(space + 1);
        imap.commands.push(text);
        run(space === -1 ? whole : whole.slice(0, space), text, tokenize(text));
      }
    };
    socket.on('data', (chunk: Buffer) => {
      input = Buffer.concat([input, chunk]);
      drain();
    });
    send(options.greeting);
  };
  const server = options.tls ? createTlsServer(options.tls, serve) : createServer(serve);
  // A client that fails its handshake (or drops) is its own problem; the server carries on.
  server.on('tlsClientError', () => undefined);

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  imap.port = (server.address() as AddressInfo).port;
  return imap;
};
