// Owns a watch: a connection of its own that IDLEs on one folder, or with NOTIFY on every folder, and says when news
// arrives (with NOTIFY, the selected folder's new messages come with their headers); it closes with a LOGOUT.

import type { ImapFlow } from 'imapflow';
import { decodePath, formatMessageResponse } from 'imapflow/lib/tools.js';
import { startTimer, type Timer } from '../../domain/timer';
import type { FetchedHeaders, FolderCursor, FolderWatch, OpenedFolder } from '../../scanner/scannerPorts';
import { type ConnectionMode, logOut } from './connection';
import { dateOf, FIRST_READ_BYTES, keptFields } from './ImapSession';
import { SelectedPushes } from './pushes';

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

/**
 * How long news of a new message in the selected folder waits for the message itself (NOTIFY pushes its headers
 * right after the EXISTS): past it the news goes out without them, and the sweep opens the folder.
 */
const PUSH_WAIT_MS = 100;

/** The two parts of imapflow's internals a NOTIFY watch needs (see notifyAll). */
interface ImapFlowInternals {
  exec(command: string, attributes: unknown[]): Promise<{ next(): void }>;
  untaggedHandlers: Record<string, (untagged: unknown) => Promise<void>>;
}

const atom = (value: string) => ({ type: 'ATOM', value });

/**
 * What NOTIFY pushes of each new message in the selected folder: what a sweep first reads of it (ImapSession), its
 * header block's first FIRST_READ_BYTES (`BODY.PEEK[HEADER]<0.n>`). Never the named fields whole: a message of 45
 * `To:` fields of 100 KB would come as one literal past the connection's limit, and the watch would drop.
 */
const PUSHED_ATTRIBUTES = [
  atom('UID'),
  atom('INTERNALDATE'),
  { type: 'ATOM', value: 'BODY.PEEK', section: [atom('HEADER')], partial: [0, FIRST_READ_BYTES] },
];

/**
 * Where the server offers NOTIFY (Dovecot does), sets it up: `NOTIFY SET` asks for new and expunged messages in the
 * selected mailbox (as EXISTS, each new one followed by a FETCH of its UID, date and the start of its header block,
 * told to `onPushed` as the fields the scanner reads, or as `cut` when the block is longer than that start)
 * and in every other personal one (as an untagged STATUS during IDLE). imapflow 2.1.2 has no NOTIFY of its own, so
 * the command goes through its generic `exec`, the STATUS and FETCH answers through its untagged-response table, and
 * a FETCH is read by its own formatMessageResponse (dist/esm/imap-flow.js and tools.js of the pinned version).
 * False: watch folder by folder.
 */
export const notifyAll = async (
  client: ImapFlow,
  onNews: (path?: string) => void,
  onPushed: (seq: number, message: FetchedHeaders | { uid: number; cut: true }) => void,
): Promise<boolean> => {
  if (!client.capabilities.has('IDLE') || !client.capabilities.has('NOTIFY')) return false;
  const internals = client as unknown as ImapFlowInternals;
  internals.untaggedHandlers.STATUS = async (untagged) => onNews(statusFolder(client, untagged));
  // Replaces imapflow's own, which only passes flag changes on (this connection never asks for them).
  internals.untaggedHandlers.FETCH = async (untagged) => {
    const mailbox = client.mailbox;
    if (!mailbox) return;
    const message = await formatMessageResponse(
      untagged as Parameters<typeof formatMessageResponse>[0],
      mailbox,
    );
    const raw = message.headers ?? message.bodyParts?.get('header');
    if (message.seq === undefined || message.uid === undefined || !Buffer.isBuffer(raw)) return;
    // A block longer than the first read is the sweep's to read (and skip when too large), as if never pushed.
    if (raw.length >= FIRST_READ_BYTES) return onPushed(message.seq, { uid: message.uid, cut: true });
    onPushed(message.seq, {
      uid: message.uid,
      internalDate: dateOf(message.internalDate),
      headers: keptFields(raw),
    });
  };
  const events = [atom('MessageNew'), atom('MessageExpunge')];
  const selected = [atom('MessageNew'), PUSHED_ATTRIBUTES, atom('MessageExpunge')];
  // A server that refuses it (NO, BAD) is watched folder by folder instead.
  const response = await internals
    .exec('NOTIFY', [atom('SET'), [atom('selected'), selected], [atom('personal'), events]])
    .catch(() => undefined);
  response?.next();
  return response !== undefined;
};

/** The longest folder name an announcement is taken at its word for; a longer one asks for a full sweep. */
const MAX_ANNOUNCED_NAME = 512;

/** Whether `text` holds a control character (C0, DEL or C1). */
const hasControl = (text: string): boolean => {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
};

/**
 * The folder an untagged STATUS names (`* STATUS <mailbox> (...)`), as imapflow's LIST names it: printable ASCII as
 * sent, modified UTF-7 (`&…-`) decoded by imapflow's own decodePath. Anything else (8-bit or control characters, sent
 * or decoded, a literal, an odd shape) is undefined, which sweeps every folder.
 */
const statusFolder = (client: ImapFlow, untagged: unknown): string | undefined => {
  const first = (untagged as { attributes?: unknown[] } | undefined)?.attributes?.[0];
  const value = (first as { value?: unknown } | undefined)?.value;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ANNOUNCED_NAME) return undefined;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code > 0x7e) return undefined;
  }
  if (!value.includes('&')) return value;
  const decoded = decodePath(client, value);
  return decoded.length > 0 && !hasControl(decoded) ? decoded : undefined;
};

/** Says whether the server can IDLE, then EXAMINEs `path` to IDLE on it. */
export const watchOn = async (
  client: ImapFlow,
  path: string,
  onNews: (path: string) => void,
): Promise<FolderWatch | undefined> => {
  const watch = new ImapWatch(client);
  try {
    if (!client.capabilities.has('IDLE')) {
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

/**
 * Where the server offers NOTIFY, one watch over every folder (see notifyAll): it EXAMINEs INBOX, and later the
 * folder tagged copies last landed in (`follow`), so their new messages come with their headers. Undefined: the
 * server has no NOTIFY.
 */
export const notifyWatchOn = async (
  client: ImapFlow,
  onNews: (path?: string) => void,
): Promise<FolderWatch | undefined> => {
  const watch = new NotifyWatch(client, onNews);
  try {
    if (!(await notifyAll(client, onNews, (seq, message) => watch.pushed(seq, message)))) {
      await watch.close();
      return undefined;
    }
    client.on('exists', ({ count, prevCount }: { count: number; prevCount: number }) =>
      watch.counted(count, prevCount),
    );
    client.on('expunge', ({ seq }: { seq?: number }) => watch.expunged(seq));
    await watch.select('INBOX');
    return watch;
  } catch (error) {
    await watch.close();
    throw error;
  }
};

class ImapWatch implements FolderWatch {
  constructor(protected readonly client: ImapFlow) {}

  get usable(): boolean {
    return this.client.usable;
  }

  close(): Promise<void> {
    return logOut(this.client);
  }
}

class NotifyWatch extends ImapWatch {
  private readonly pushes = new SelectedPushes();
  /** Set while an announced new message waits for its push (PUSH_WAIT_MS). */
  private waiting: Timer | undefined;
  private selecting: Promise<void> | undefined;

  constructor(
    client: ImapFlow,
    private readonly onNews: (path?: string) => void,
  ) {
    super(client);
  }

  /** The selected folder's count changed (EXISTS): news at once when its new messages are all pushed, else soon. */
  counted(count: number, previous: number): void {
    this.pushes.exists(count);
    if (count <= previous) return;
    const path = this.pushes.path;
    // Mid-selection the count may be either folder's: news that names none reads every folder.
    if (path === undefined) this.onNews(undefined);
    else if (this.pushes.complete) this.announce();
    else
      this.waiting ??= startTimer(PUSH_WAIT_MS, () => {
        this.waiting = undefined;
        this.onNews(path);
      });
  }

  expunged(seq: number | undefined): void {
    this.pushes.expunged(seq);
  }

  pushed(seq: number, message: FetchedHeaders | { uid: number; cut: true }): void {
    if ('cut' in message) this.pushes.cut(seq, message.uid);
    else this.pushes.pushed(seq, message);
    if (this.pushes.complete) this.announce();
  }

  opened(path: string, after: FolderCursor | undefined, most: number): OpenedFolder | undefined {
    return this.client.usable ? this.pushes.opened(path, after, most) : undefined;
  }

  follow(path: string): void {
    const previous = this.pushes.path;
    if (previous === path || this.selecting || !this.client.usable) return;
    this.selecting = this.select(path)
      // Mail may have landed in either folder while the selection moved, unannounced: both are read once more (the
      // new one from its pushes when nothing came before its selection).
      .then(() => {
        this.onNews(previous);
        this.onNews(path);
      })
      // A folder that cannot be selected leaves the watch with none: every announcement a STATUS, as before.
      .catch(() => undefined)
      .finally(() => {
        this.selecting = undefined;
      });
  }

  async select(path: string): Promise<void> {
    this.pushes.selecting();
    await this.client.mailboxOpen(path, { readOnly: true });
    const mailbox = this.client.mailbox || undefined;
    this.pushes.selected(path, {
      uidValidity: String(mailbox?.uidValidity ?? ''),
      uidNext: Number(mailbox?.uidNext),
      exists: Number(mailbox?.exists),
    });
  }

  override close(): Promise<void> {
    this.waiting?.cancel();
    return super.close();
  }

  private announce(): void {
    this.waiting?.cancel();
    this.waiting = undefined;
    const path = this.pushes.path;
    if (path !== undefined) this.onNews(path);
  }
}
