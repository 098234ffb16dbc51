// Owns one IMAP connection with imapflow: its transport security, its timeouts and size caps, the commands it shows a
// listener, connecting (failures as ImapConnectError) and logging out without waiting on a silent server.

import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import { startTimer, type Timer } from '../../domain/timer';
import type { Logger } from '../../log';
import { MAX_HEADER_BYTES } from '../../scanner/headers';
import type { MailboxCredentials, MailboxServer } from '../../scanner/scannerPorts';
import { ImapConnectError } from './connectionErrors';

export interface ImapTimeouts {
  /** TCP (and TLS) connect. */
  connectMs: number;
  /** From connect to the server's greeting. */
  greetingMs: number;
  /** Longest silence on an open connection, e.g. a server that stops mid-fetch. */
  socketMs: number;
}

export const DEFAULT_IMAP_TIMEOUTS: ImapTimeouts = { connectMs: 5000, greetingMs: 5000, socketMs: 15_000 };

/**
 * The longest literal a connection takes: a header read asks for at most MAX_HEADER_BYTES + 1 (ImapSession), so a
 * longer one is a server that ignored the partial fetch; refusing it ends the connection before it costs memory.
 */
const MAX_LITERAL_BYTES = MAX_HEADER_BYTES + 64 * 1024;
export const LOGOUT_WAIT_MS = 2000;

/** Sees every command sent (with secrets masked by imapflow), e.g. to count IMAP round trips. */
export type CommandListener = (account: string, command: string) => void;

const commandVerb = (line: string): string => {
  const [, first = '', second = ''] = line.split(' ');
  return first.toUpperCase() === 'UID' ? `UID ${second.toUpperCase()}` : first.toUpperCase();
};

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|localhost)$/i;

/**
 * The certificates a connection trusts: Node's own roots plus an operator's CA (IMAP_CA_FILE), so naming a private
 * CA adds trust in one server without taking it from every provider. Undefined: Node's roots alone.
 */
export const trustedRoots = (extraCa: string | undefined): string[] | undefined =>
  extraCa === undefined ? undefined : [...rootCertificates, extraCa];

/**
 * Those roots as one TLS context, built once per connector: given as a `ca` list, Node would parse every root
 * certificate again for each connection, CPU that made a shard's first sweep over TLS queue into connect timeouts.
 */
export const trustContext = (extraCa: string | undefined): SecureContext | undefined => {
  const ca = trustedRoots(extraCa);
  return ca === undefined ? undefined : createSecureContext({ ca, minVersion: 'TLSv1.2' });
};

/**
 * TLS with certificate verification on every host, loopback too: TLS from the first byte when `secure`, else
 * STARTTLS is required (imapflow fails the connection when the server does not offer it). Only a loopback test
 * server may speak clear text, and only when the account says it is not secure.
 */
export const transportSecurity = (
  server: MailboxServer,
  secureContext?: SecureContext,
): Pick<ImapFlowOptions, 'tls' | 'doSTARTTLS'> => {
  if (LOOPBACK.test(server.host) && !server.secure) return { doSTARTTLS: false };
  return {
    tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2', ...(secureContext ? { secureContext } : {}) },
    ...(server.secure ? {} : { doSTARTTLS: true }),
  };
};

/** How a connection is used: a sweep session (no auto-IDLE) or a watch (IDLE at once, renewed). */
export type ConnectionMode = Pick<
  ImapFlowOptions,
  'disableAutoIdle' | 'autoIdleDelay' | 'maxIdleTime' | 'socketTimeout'
>;

/** What every connection of one connector shares. */
export interface ConnectionSettings {
  timeouts: ImapTimeouts;
  log: Logger;
  onCommand: CommandListener | undefined;
  /** What trustContext gave; undefined: Node's roots. */
  secureContext?: SecureContext | undefined;
}

/** Connects and logs in as `login` says; an abort closes the connection, and any failure is an ImapConnectError. */
export const openConnection = async (
  credentials: MailboxCredentials,
  login: { user: string; pass?: string; accessToken?: string },
  settings: ConnectionSettings,
  mode: ConnectionMode,
  signal?: AbortSignal,
): Promise<ImapFlow> => {
  const account = credentials.email;
  const { onCommand, timeouts, log, secureContext } = settings;
  const options: ImapFlowOptions = {
    host: credentials.imap.host,
    port: credentials.imap.port,
    secure: credentials.imap.secure,
    auth: login,
    ...transportSecurity(credentials.imap, secureContext),
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.greetingMs,
    socketTimeout: timeouts.socketMs,
    ...mode,
    maxLiteralSize: MAX_LITERAL_BYTES,
    maxResponseSize: MAX_LITERAL_BYTES * 2,
    clientInfo: { name: 'inbox-placement-scanner' },
    logger: {
      debug: (entry: { src?: string; msg?: string }) => {
        if (entry.src === 'c' && entry.msg && onCommand) onCommand(account, commandVerb(entry.msg));
      },
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    },
  };
  const client = new ImapFlow(options);
  // Without a listener an 'error' event would crash the process; the failing call rejects on its own.
  client.on('error', (error: Error) => log.debug('imap connection error', { account, error: error.message }));
  const abort = () => client.close();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    if (signal?.aborted) throw new Error('scanner closing');
    await client.connect();
  } catch (error) {
    client.close();
    throw new ImapConnectError(error, credentials.imap.host, credentials.imap.port);
  } finally {
    signal?.removeEventListener('abort', abort);
  }
  return client;
};

/** LOGOUT politely (imapflow breaks an IDLE first), but never wait on a server that has stopped answering. */
export const logOut = async (client: ImapFlow): Promise<void> => {
  let timer: Timer | undefined;
  await Promise.race([
    client.logout().catch(() => undefined),
    new Promise((resolve) => (timer = startTimer(LOGOUT_WAIT_MS, () => resolve(undefined)))),
  ]);
  timer?.cancel();
  client.close();
};
