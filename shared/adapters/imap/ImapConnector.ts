// Owns the scanner's MailboxConnector over IMAP: how an account logs in (password or OAuth2 token), and which
// connection each use gets: a mailbox session for sweeps (ImapSession.ts), a watch for news (ImapWatch.ts).

import type { SecureContext } from 'node:tls';
import type { ImapFlow } from 'imapflow';
import type { Logger } from '../../log';
import type {
  AccessTokens,
  FolderWatch,
  MailboxConnector,
  MailboxCredentials,
  MailboxSession,
} from '../../scanner/scannerPorts';
import {
  type CommandListener,
  type ConnectionMode,
  DEFAULT_IMAP_TIMEOUTS,
  type ImapTimeouts,
  openConnection,
  trustContext,
} from './connection';
import { ImapSession } from './ImapSession';
import { notifyWatchOn, WATCH_MODE, WATCH_SILENCE_MS, watchOn } from './ImapWatch';

export { type CommandListener, DEFAULT_IMAP_TIMEOUTS, type ImapTimeouts } from './connection';

export class ImapConnector implements MailboxConnector {
  private readonly secureContext: SecureContext | undefined;

  /** `trustedCa`: a CA's certificates (PEM) trusted beside Node's roots, from IMAP_CA_FILE. */
  constructor(
    private readonly log: Logger,
    private readonly timeouts: ImapTimeouts = DEFAULT_IMAP_TIMEOUTS,
    private readonly onCommand?: CommandListener,
    private readonly tokens?: AccessTokens,
    trustedCa?: string,
  ) {
    this.secureContext = trustContext(trustedCa);
  }

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
    onNews: (path: string) => void,
    signal?: AbortSignal,
  ): Promise<FolderWatch | undefined> {
    return watchOn(await this.connect(credentials, WATCH_MODE, signal), path, onNews);
  }

  /** Where the server offers NOTIFY (Dovecot does): one connection for every folder (see notifyWatchOn). */
  async watchAll(
    credentials: MailboxCredentials,
    onNews: (path?: string) => void,
    signal?: AbortSignal,
  ): Promise<FolderWatch | undefined> {
    return notifyWatchOn(await this.connect(credentials, WATCH_MODE, signal), onNews);
  }

  private async connect(
    credentials: MailboxCredentials,
    mode: ConnectionMode,
    signal?: AbortSignal,
  ): Promise<ImapFlow> {
    const settings = {
      timeouts: this.timeouts,
      log: this.log,
      onCommand: this.onCommand,
      secureContext: this.secureContext,
    };
    return openConnection(credentials, await this.loginOf(credentials), settings, mode, signal);
  }
}
