// Owns talking IMAP with imapflow: one connection per mailbox, read-only folder locks, every timeout bounded.
import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import type { Logger } from '../../log';
import { FETCHED_HEADERS } from '../../scanner/headers';
import {
  type AccessTokens,
  type FetchedHeaders,
  type FolderState,
  type FolderWatch,
  GMAIL_TABS,
  type GmailTab,
  type MailboxConnector,
  type MailboxCredentials,
  type MailboxServer,
  type MailboxSession,
} from '../../scanner/ports';

export interface ImapTimeouts {
  /** TCP (and TLS) connect. */
  connectMs: number;
  /** From connect to the server's greeting. */
  greetingMs: number;
  /** Longest silence on an open connection, e.g. a server that stops mid-fetch. */
  socketMs: number;
}

export const DEFAULT_IMAP_TIMEOUTS: ImapTimeouts = { connectMs: 5000, greetingMs: 5000, socketMs: 15_000 };

// Header blocks beyond this are not read at all; the parser refuses anything over 1 MB anyway.
const MAX_LITERAL_BYTES = 4 * 1024 * 1024;
const DAY_MS = 86_400_000;
export const LOGOUT_WAIT_MS = 2000;
/** On first sight of a folder, at most this many of the newest candidates are read; a test mailbox gets far fewer in 10 minutes. */
export const MAX_FIRST_SIGHT_MESSAGES = 500;

/**
 * RFC 2177: a client re-issues IDLE at least every 29 minutes, or the server may log it out as inactive.
 */
export const IDLE_RENEW_MS = 25 * 60_000;
/**
 * A watch idles in silence (Dovecot says "still here" every 2 minutes; Gmail and others say nothing): after this
 * long without a byte imapflow sends a NOOP (and IDLE again), so a dead connection is found within twice this,
 * for two commands per watch per this long on a silent server. The sweep session keeps the 15 s bound.
 */
export const WATCH_SILENCE_MS = 5 * 60_000;

/** Sees every command sent (with secrets masked by imapflow), e.g. to count IMAP round trips. */
export type CommandListener = (account: string, command: string) => void;

const commandVerb = (line: string): string => {
  const [, first = '', second = ''] = line.split(' ');
  return first.toUpperCase() === 'UID' ? `UID ${second.toUpperCase()}` : first.toUpperCase();
};

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|\[::1\]|localhost)$/i;

/**
 * TLS with certificate verification for every host but loopback test servers: TLS from the first byte when
 * `secure`, else STARTTLS is required (imapflow fails the connection when the server does not offer it).
 */
export const transportSecurity = (server: MailboxServer): Pick<ImapFlowOptions, 'tls' | 'doSTARTTLS'> => {
  if (LOOPBACK.test(server.host))
    return server.secure ? { tls: { rejectUnauthorized: false } } : { doSTARTTLS: false };
  return {
    tls: { rejectUnauthorized: true, minVersion: 'TLSv1.2' },
    ...(server.secure ? {} : { doSTARTTLS: true }),
  };
};

/** A failed connect or login, described for a person: what failed, where, and the server's own words. */
export class ImapConnectError extends Error {
  readonly code: string | undefined;
  readonly authenticationFailed: boolean;

  constructor(cause: unknown, host: string, port: number) {
    const details = (cause ?? {}) as {
      code?: string;
      authenticationFailed?: boolean;
      responseText?: string;
      message?: string;
    };
    const server = details.responseText ? ` (server said: ${details.responseText})` : '';
    const what = details.authenticationFailed
      ? `authentication failed at ${host}:${port}, check the user and the (app) password${server}`
      : `could not connect to ${host}:${port}: ${details.code ?? details.message ?? String(cause)}${server}`;
    super(what);
    this.name = 'ImapConnectError';
    this.code = details.code;
    this.authenticationFailed = details.authenticationFailed === true;
  }
}

export class ImapConnector implements MailboxConnector {
  constructor(
    private readonly log: Logger,
    private readonly timeouts: ImapTimeouts = DEFAULT_IMAP_TIMEOUTS,
    private readonly onCommand?: CommandListener,
    private readonly tokens?: AccessTokens,
  ) {}

  private async loginOf({
    email,
    auth,
  }: MailboxCredentials): Promise<{ user: string; pass?: string; accessToken?: string }> {
    if ('pass' in auth) return { user: auth.user, pass: auth.pass };
    if (!this.tokens) throw new Error(`${email} uses OAuth2, but this scanner has no token provider`);
    return { user: auth.user, accessToken: await this.tokens.accessToken(email, auth.oauth2) };
  }

  async open(credentials: MailboxCredentials, signal?: AbortSignal): Promise<MailboxSession> {
    // Held between sweeps that may be SAFETY_SWEEP_MS apart: imapflow would end it after socketMs of silence and
    // every sweep would log in again. A server silent mid-command is bounded by the session's own watchdog.
    const client = await this.connect(
      credentials,
      { disableAutoIdle: true, socketTimeout: Math.max(this.timeouts.socketMs, WATCH_SILENCE_MS) },
      signal,
    );
    return new ImapSession(client, this.timeouts.socketMs);
  }

  /**
   * One connection per watched folder (imapflow has no NOTIFY, which would watch several on one): EXAMINE, then
   * IDLE at once and again after anything else the connection runs. A server without IDLE gets no watch at all.
   */
  async watch(
    credentials: MailboxCredentials,
    path: string,
    onNews: () => void,
    signal?: AbortSignal,
  ): Promise<FolderWatch | undefined> {
    return this.idleOn(credentials, path, onNews, signal, async (client) => client.capabilities.has('IDLE'));
  }

  /**
   * Where the server offers NOTIFY (Dovecot does): one connection for every folder. `NOTIFY SET` asks for new and
   * expunged messages in the selected mailbox (as EXISTS) and in every other personal one (as an untagged STATUS
   * during IDLE). imapflow 2.1.2 has no NOTIFY of its own, so the command goes through its generic `exec` and the
   * STATUS answers through its untagged-response table (both in dist/esm/imap-flow.js of the pinned version).
   */
  async watchAll(
    credentials: MailboxCredentials,
    onNews: () => void,
    signal?: AbortSignal,
  ): Promise<FolderWatch | undefined> {
    return this.idleOn(credentials, 'INBOX', onNews, signal, async (client) => {
      if (!client.capabilities.has('IDLE') || !client.capabilities.has('NOTIFY')) return false;
      const internals = client as unknown as ImapFlowInternals;
      internals.untaggedHandlers.STATUS = async () => onNews();
      const events = [atom('MessageNew'), atom('MessageExpunge')];
      // A server that refuses it (NO, BAD) is watched folder by folder instead.
      const response = await internals
        .exec('NOTIFY', [atom('SET'), [atom('selected'), events], [atom('personal'), events]])
        .catch(() => undefined);
      response?.next();
      return response !== undefined;
    });
  }

  /** Connects, lets `prepare` say whether the server can push (and set it up), then EXAMINEs `path` to IDLE on it. */
  private async idleOn(
    credentials: MailboxCredentials,
    path: string,
    onNews: () => void,
    signal: AbortSignal | undefined,
    prepare: (client: ImapFlow) => Promise<boolean>,
  ): Promise<FolderWatch | undefined> {
    const client = await this.connect(
      credentials,
      {
        disableAutoIdle: false,
        autoIdleDelay: 0,
        maxIdleTime: IDLE_RENEW_MS,
        socketTimeout: WATCH_SILENCE_MS,
      },
      signal,
    );
    const watch = new ImapWatch(client);
    try {
      if (!(await prepare(client))) {
        await watch.close();
        return undefined;
      }
      client.on('exists', () => onNews());
      await client.mailboxOpen(path, { readOnly: true });
      return watch;
    } catch (error) {
      await watch.close();
      throw error;
    }
  }

  private async connect(
    credentials: MailboxCredentials,
    mode: Pick<ImapFlowOptions, 'disableAutoIdle' | 'autoIdleDelay' | 'maxIdleTime' | 'socketTimeout'>,
    signal?: AbortSignal,
  ): Promise<ImapFlow> {
    const account = credentials.email;
    const onCommand = this.onCommand;
    const options: ImapFlowOptions = {
      host: credentials.imap.host,
      port: credentials.imap.port,
      secure: credentials.imap.secure,
      auth: await this.loginOf(credentials),
      ...transportSecurity(credentials.imap),
      connectionTimeout: this.timeouts.connectMs,
      greetingTimeout: this.timeouts.greetingMs,
      socketTimeout: this.timeouts.socketMs,
      ...mode,
      maxLiteralSize: MAX_LITERAL_BYTES,
      maxResponseSize: MAX_LITERAL_BYTES * 4,
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
    client.on('error', (error: Error) =>
      this.log.debug('imap connection error', { account, error: error.message }),
    );
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
  }
}

/** The two parts of imapflow's internals a NOTIFY watch needs (see watchAll). */
interface ImapFlowInternals {
  exec(command: string, attributes: unknown[]): Promise<{ next(): void }>;
  untaggedHandlers: Record<string, (untagged: unknown) => Promise<void>>;
}

const atom = (value: string) => ({ type: 'ATOM', value });

class ImapWatch implements FolderWatch {
  constructor(private readonly client: ImapFlow) {}

  get usable(): boolean {
    return this.client.usable;
  }

  close(): Promise<void> {
    return logOut(this.client);
  }
}

/** LOGOUT politely (imapflow breaks an IDLE first), but never wait on a server that has stopped answering. */
const logOut = async (client: ImapFlow): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    client.logout().catch(() => undefined),
    new Promise((resolve) => (timer = setTimeout(resolve, LOGOUT_WAIT_MS))),
  ]);
  clearTimeout(timer);
  client.close();
};

class ImapSession implements MailboxSession {
  readonly gmail: boolean;

  constructor(
    private readonly client: ImapFlow,
    /** The longest any one call may wait on the server; past it the connection is closed and the call fails. */
    private readonly answerMs: number,
  ) {
    this.gmail = client.capabilities.has('X-GM-EXT-1');
  }

  get usable(): boolean {
    return this.client.usable;
  }

  async folders(): Promise<FolderState[]> {
    // One LIST-STATUS where the server has it (Dovecot, Gmail), else LIST plus one STATUS per folder.
    const list = await this.answered(() =>
      this.client.list({ statusQuery: { uidNext: true, uidValidity: true, messages: true } }),
    );
    return list.flatMap((entry) => {
      const { uidNext, uidValidity, messages } = entry.status ?? {};
      if (uidNext === undefined || uidValidity === undefined) return [];
      return [
        {
          path: entry.path,
          specialUse: entry.specialUse,
          flags: [...entry.flags],
          uidNext,
          uidValidity: String(uidValidity),
          ...(typeof messages === 'number' ? { messages } : {}),
        },
      ];
    });
  }

  async headersAfter(path: string, afterUid: number, upToUid: number): Promise<FetchedHeaders[]> {
    // A bounded range, never `N:*`: the caller batches a backlog, and each call is one fetch under answerMs.
    return this.withFolder(path, async () => {
      const fetched = await this.fetchHeaders(`${afterUid + 1}:${Math.max(afterUid + 1, upToUid)}`);
      return fetched.filter((message) => message.uid > afterUid && message.uid <= upToUid);
    });
  }

  async headersSince(path: string, since: number): Promise<FetchedHeaders[]> {
    return this.withFolder(path, async () => {
      // With WITHIN (Dovecot) imapflow sends YOUNGER <seconds>, which is exact; without it (Gmail) SINCE has
      // day granularity in the server's time zone, so ask a day more, keep the newest, and filter on INTERNALDATE.
      const exact = this.client.capabilities.has('WITHIN');
      // Only the newest MAX_FIRST_SIGHT_MESSAGES UIDs can hold the newest candidates (UIDs grow with arrival), so the
      // search stays off the rest of a long history: searching a long history by date made a first sight slower
      // than in a mailbox without it, with the same commands (the sweep-cost bench; BENCHMARKS.md).
      const uidNext = this.client.mailbox ? Number(this.client.mailbox.uidNext) : 0;
      const from = Math.max(1, uidNext - MAX_FIRST_SIGHT_MESSAGES);
      const found = refusedIfFalse(
        await this.client.search(
          { uid: `${from}:*`, since: new Date(exact ? since : since - DAY_MS) },
          { uid: true },
        ),
        'SEARCH SINCE',
      ).filter((uid) => uid >= from);
      if (found.length === 0) return [];
      const uids = found.sort((a, b) => a - b).slice(-MAX_FIRST_SIGHT_MESSAGES);
      const fetched = await this.fetchHeaders(uids.join(','));
      return fetched.filter((message) => message.internalDate >= since);
    });
  }

  async tabsOf(path: string, uids: readonly number[]): Promise<Map<number, GmailTab>> {
    const tabs = new Map<number, GmailTab>();
    if (uids.length === 0) return tabs;
    return this.withFolder(path, async () => {
      for (const tab of GMAIL_TABS) {
        const found = refusedIfFalse(
          await this.client.search({ uid: uids.join(','), gmraw: `category:${tab}` }, { uid: true }),
          `X-GM-RAW category:${tab}`,
        );
        for (const uid of found) if (!tabs.has(uid)) tabs.set(uid, tab);
      }
      return tabs;
    });
  }

  close(): Promise<void> {
    return logOut(this.client);
  }

  /** Runs `call`, closing the connection (which fails the call) when the server has not answered within answerMs. */
  private async answered<T>(call: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    let silent = false;
    const watchdog = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        silent = true;
        this.client.close();
        reject(new Error(`the server did not answer within ${this.answerMs} ms`));
      }, this.answerMs);
    });
    try {
      return await Promise.race([call(), watchdog]);
    } catch (error) {
      if (silent) throw new Error(`the server did not answer within ${this.answerMs} ms`);
      throw error;
    } finally {
      clearTimeout(timer);
      watchdog.catch(() => undefined);
    }
  }

  private async withFolder<T>(path: string, read: () => Promise<T>): Promise<T> {
    return this.answered(() => this.inFolder(path, read));
  }

  private async inFolder<T>(path: string, read: () => Promise<T>): Promise<T> {
    const lock = await this.client.getMailboxLock(path, { readOnly: true });
    try {
      return await read();
    } finally {
      // Leave nothing selected: servers may answer STATUS for the selected mailbox from the session's stale view,
      // and the next sweep's LIST-STATUS must see new mail.
      await this.client.mailboxClose().catch(() => undefined);
      lock.release();
    }
  }

  private async fetchHeaders(range: string): Promise<FetchedHeaders[]> {
    const messages = await this.client.fetchAll(
      range,
      { uid: true, internalDate: true, headers: [...FETCHED_HEADERS] },
      { uid: true },
    );
    return messages.map((message) => ({
      uid: message.uid,
      internalDate: dateOf(message.internalDate),
      headers: message.headers ?? Buffer.alloc(0),
    }));
  }
}

/**
 * imapflow answers a refused SEARCH (NO/BAD) with `false`, not an error. Treating that as "nothing found" would
 * record wrong tabs or move a cursor past unread mail, so it fails the sweep instead, which is retried.
 */
const refusedIfFalse = (found: number[] | false | undefined, what: string): number[] => {
  if (found === false || found === undefined) throw new Error(`the server refused ${what}`);
  return found;
};

const dateOf = (value: Date | string | undefined): number =>
  value === undefined ? 0 : new Date(value).getTime();
