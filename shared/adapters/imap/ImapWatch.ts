// Owns a watch: a connection of its own that IDLEs on one folder, or with NOTIFY on every folder, and says when news
// arrives; it closes with a LOGOUT.
import type { ImapFlow } from 'imapflow';
import type { FolderWatch } from '../../scanner/ports';
import { type ConnectionMode, logOut } from './connection';

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

/** How a watch's connection runs: IDLE at once and after anything else, renewed, and a NOOP after a silence. */
export const WATCH_MODE: ConnectionMode = {
  disableAutoIdle: false,
  autoIdleDelay: 0,
  maxIdleTime: IDLE_RENEW_MS,
  socketTimeout: WATCH_SILENCE_MS,
};

/** The two parts of imapflow's internals a NOTIFY watch needs (see notifyAll). */
interface ImapFlowInternals {
  exec(command: string, attributes: unknown[]): Promise<{ next(): void }>;
  untaggedHandlers: Record<string, (untagged: unknown) => Promise<void>>;
}

const atom = (value: string) => ({ type: 'ATOM', value });

/**
 * Where the server offers NOTIFY (Dovecot does), sets it up: `NOTIFY SET` asks for new and expunged messages in the
 * selected mailbox (as EXISTS) and in every other personal one (as an untagged STATUS during IDLE). imapflow 2.1.2
 * has no NOTIFY of its own, so the command goes through its generic `exec` and the STATUS answers through its
 * untagged-response table (both in dist/esm/imap-flow.js of the pinned version). False: watch folder by folder.
 */
export const notifyAll = async (client: ImapFlow, onNews: (path?: string) => void): Promise<boolean> => {
  if (!client.capabilities.has('IDLE') || !client.capabilities.has('NOTIFY')) return false;
  const internals = client as unknown as ImapFlowInternals;
  internals.untaggedHandlers.STATUS = async (untagged) => onNews(statusFolder(untagged));
  const events = [atom('MessageNew'), atom('MessageExpunge')];
  // A server that refuses it (NO, BAD) is watched folder by folder instead.
  const response = await internals
    .exec('NOTIFY', [atom('SET'), [atom('selected'), events], [atom('personal'), events]])
    .catch(() => undefined);
  response?.next();
  return response !== undefined;
};

/** The longest folder name an announcement is taken at its word for; a longer one asks for a full sweep. */
const MAX_ANNOUNCED_NAME = 512;

/**
 * The folder an untagged STATUS names (`* STATUS <mailbox> (...)`), as sent. Only a plain ASCII name is passed on:
 * anything else (modified UTF-7 with `&`, a literal, an odd shape) is undefined, which sweeps every folder.
 */
const statusFolder = (untagged: unknown): string | undefined => {
  const first = (untagged as { attributes?: unknown[] } | undefined)?.attributes?.[0];
  const value = (first as { value?: unknown } | undefined)?.value;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ANNOUNCED_NAME) return undefined;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code > 0x7e || code === 0x26) return undefined;
  }
  return value;
};

/** Lets `prepare` say whether the server can push (and set it up), then EXAMINEs `path` to IDLE on it. */
export const watchOn = async (
  client: ImapFlow,
  path: string,
  onNews: (path: string) => void,
  prepare: (client: ImapFlow) => Promise<boolean>,
): Promise<FolderWatch | undefined> => {
  const watch = new ImapWatch(client);
  try {
    if (!(await prepare(client))) {
      await watch.close();
      return undefined;
    }
    client.on('exists', () => onNews(path));
    await client.mailboxOpen(path, { readOnly: true });
    return watch;
  } catch (error) {
    await watch.close();
    throw error;
  }
};

class ImapWatch implements FolderWatch {
  constructor(private readonly client: ImapFlow) {}

  get usable(): boolean {
    return this.client.usable;
  }

  close(): Promise<void> {
    return logOut(this.client);
  }
}
