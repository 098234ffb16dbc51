// Owns push detection: an IDLE watch on each account's INBOX and junk folder, and when each account is due a sweep.
import type { Clock } from '../domain/clock';
import type { Logger } from '../log';
import type { ScanFolder } from './folders';
import { retryAtAfter, SCAN_SCHEDULE_MS } from './planning';
import type { ScanEvents } from './scanHooks';
import type { FolderWatch, MailboxConnector, MailboxCredentials } from './scannerPorts';

/**
 * A watched account is swept this often even when nothing is announced: the safety net for the folders no watch
 * covers (Trash, Archive, labels), an announcement lost in a reconnect, and Gmail's tabs. Each such sweep is one
 * LIST-STATUS, so a waiting account costs 2 commands a minute (test/mailstack/idle.test.ts counts them).
 */
export const SAFETY_SWEEP_MS = 30_000;
/**
 * Announced folders are read alone (focused) up to this long after the account's last full sweep. A copy announced
 * as the safety sweep falls due is read first, alone, and the safety sweep follows at the next tick: reading it in
 * the safety sweep, behind a listing of every folder, cost round trips more (BENCHMARKS.md traces it). Past this
 * long (announcements that keep the account busy at every tick) the next sweep reads every folder.
 */
const FOCUS_WITHIN_MS = 2 * SAFETY_SWEEP_MS;
/** Watch connections opened at once across all accounts, so a loop's first sweep is not crowded out by them. */
const WATCH_OPENS_AT_ONCE = 8;
/** Folders named by announcements one sweep may read alone; more (or an unnamed one) and it reads every folder. */
const MAX_ANNOUNCED = 16;

/** The folders worth a connection each: INBOX and the junk folder, where nearly every copy lands. */
export const watchedFolders = (folders: readonly ScanFolder[]): string[] => [
  ...new Set(
    folders
      .filter((folder) => folder.path.toLowerCase() === 'inbox' || folder.category === 'spam')
      .map((folder) => folder.path),
  ),
];

interface FolderWatchState {
  watch?: FolderWatch;
  opening: boolean;
  failures: number;
  retryAt: number;
}

/** Opening a folder answered from a watch's pushes. */
export type PushedOpening = NonNullable<FolderWatch['opened']>;

/** The key of an account's one watch over every folder (NOTIFY). */
const EVERY_FOLDER = '*';

interface AccountWatches {
  folders: Map<string, FolderWatchState>;
  /** Whether the server watches every folder on one connection (NOTIFY); undefined until tried. */
  notify?: boolean;
  /** The server has no IDLE: the account is polled every tick. */
  pushless: boolean;
  /**
   * Something may be new that no sweep has read yet (see hasNewsIn): the folders announcements named since the last
   * sweep started, when only those can hold it, or `everywhere`, news that named no folder (a watch just opened, a
   * failed sweep, an unnamed announcement): read them all.
   */
  announced: Set<string>;
  everywhere: boolean;
  /** The running sweep reads only announced folders: it does not count as the safety net's sweep. */
  focused: boolean;
  sweepStartedAt: number;
  lastSweptAt: number;
}

/** Whether an announcement (or a watch opening, or a failed sweep) came since the account's last sweep started. */
const hasNewsIn = (account: AccountWatches): boolean => account.everywhere || account.announced.size > 0;

export interface WatchesDeps {
  connector: MailboxConnector;
  clock: Clock;
  log: Logger;
  events?: ScanEvents;
}

export class Watches {
  private readonly accounts = new Map<string, AccountWatches>();
  private readonly queue: (() => Promise<void>)[] = [];
  private readonly inflight = new Set<Promise<void>>();
  /** The accounts a check within its patience waits for; undefined: every account (no patience). */
  private held: ReadonlySet<string> | undefined;

  /** `onNews` is told of every announcement, to sweep the account at once. */
  constructor(
    private readonly deps: WatchesDeps,
    private readonly onNews: (email: string) => void,
  ) {}

  /**
   * What the account's watch over every folder was pushed, to answer opening a folder without the round trips to
   * the server (FolderWatch.opened); undefined when it has none live.
   */
  pushes(email: string): PushedOpening | undefined {
    const watch = this.everyFolder(email);
    return watch?.opened?.bind(watch);
  }

  /** Tagged copies were found in `path`: the account's watch over every folder selects it (FolderWatch.follow). */
  landed(email: string, path: string): void {
    this.everyFolder(email)?.follow?.(path);
  }

  /** Which accounts are held (see planning.waitingAccounts): only those get watches, or are polled every tick. */
  hold(held: ReadonlySet<string>): void {
    this.held = held;
  }

  /**
   * Whether `email` is due a sweep at `now`: when something may be new, every SAFETY_SWEEP_MS while its watches are
   * live, at every tick while a held account's are not (it is polled), and every SCAN_SCHEDULE_MS for an account no
   * check holds any more (what the schedule's loop would do; a loop's first sweep is always due).
   */
  due(email: string, now: number): boolean {
    const account = this.accounts.get(email);
    if (!account || hasNewsIn(account)) return true;
    if (this.watched(account)) return now - account.lastSweptAt >= SAFETY_SWEEP_MS;
    return this.isHeld(email) || now - account.lastSweptAt >= SCAN_SCHEDULE_MS;
  }

  /** Whether an announcement came since the account's last sweep started. */
  hasNews(email: string): boolean {
    const account = this.accounts.get(email);
    return account !== undefined && hasNewsIn(account);
  }

  /**
   * A sweep starts: it reads whatever was announced until now. Returns the folders it need read alone when only
   * named announcements came since a full sweep of live watches less than FOCUS_WITHIN_MS ago (the announced
   * folder's own state comes from opening it, or from what the watch was pushed: no listing of every folder first);
   * undefined: read every folder. A safety sweep that fell due meanwhile follows at the next tick.
   */
  sweeping(email: string, now: number): ReadonlySet<string> | undefined {
    const account = this.accountOf(email);
    const focus =
      !account.everywhere &&
      account.announced.size > 0 &&
      this.watched(account) &&
      now - account.lastSweptAt < FOCUS_WITHIN_MS
        ? new Set(account.announced)
        : undefined;
    account.everywhere = false;
    account.announced.clear();
    account.focused = focus !== undefined;
    account.sweepStartedAt = now;
    return focus;
  }

  /** A sweep ended; after a failed one the account stays due (its backoff says when), every folder to read. */
  swept(email: string, ok: boolean): void {
    const account = this.accountOf(email);
    if (ok && !account.focused) account.lastSweptAt = account.sweepStartedAt;
    if (!ok) account.everywhere = true;
  }

  /**
   * After a sweep listed the account's folders: opens a watch on each folder to watch that has none (again after
   * backoff when one dropped). Never waits for one: until it is live the account is polled.
   */
  keep(credentials: MailboxCredentials, folders: readonly ScanFolder[], signal: AbortSignal): void {
    const { connector, clock } = this.deps;
    const account = this.accountOf(credentials.email);
    if (!connector.watchAll) account.notify = false;
    const onNews = (path?: string) => this.announce(credentials.email, path);
    const watch =
      account.notify === false
        ? connector.watch && ((path: string) => connector.watch?.(credentials, path, onNews, signal))
        : () => connector.watchAll?.(credentials, onNews, signal);
    // An account no check holds is swept a minute apart, with no watch: a connection opened for it keeps nothing.
    if (!watch || account.pushless || !this.isHeld(credentials.email)) return;
    const now = clock.now();
    for (const path of account.notify === false ? watchedFolders(folders) : [EVERY_FOLDER]) {
      let state = account.folders.get(path);
      if (!state) {
        state = { opening: false, failures: 0, retryAt: 0 };
        account.folders.set(path, state);
      }
      if (state.opening || state.watch?.usable || state.retryAt > now || signal.aborted) continue;
      const folder = state;
      folder.opening = true;
      this.limited(async () => {
        const old = folder.watch;
        delete folder.watch;
        await old?.close().catch(() => undefined);
        try {
          const opened = await watch(path);
          if (!opened && path === EVERY_FOLDER) {
            // No NOTIFY: INBOX and junk get a watch each, opened at the next sweep.
            account.notify = false;
            account.folders.delete(path);
            return;
          }
          if (!opened) {
            account.pushless = true;
            this.deps.events?.watched?.({ email: credentials.email, path, state: 'pushless' });
            return;
          }
          if (signal.aborted) {
            await opened.close();
            return;
          }
          folder.watch = opened;
          folder.failures = 0;
          if (path === EVERY_FOLDER) account.notify = true;
          // Mail may have landed between the last sweep's listing and this watch's EXAMINE: read once more.
          account.everywhere = true;
          this.deps.events?.watched?.({ email: credentials.email, path, state: 'watching' });
        } catch (error) {
          folder.failures++;
          folder.retryAt = retryAtAfter(folder.failures, clock.now());
          this.deps.log.debug('imap watch failed; the account is polled meanwhile', {
            account: credentials.email,
            folder: path,
            failures: folder.failures,
            error: error instanceof Error ? error.message : String(error),
          });
          this.deps.events?.watched?.({ email: credentials.email, path, state: 'failed' });
        } finally {
          folder.opening = false;
        }
      });
    }
  }

  /**
   * Closes every watch and forgets every account, so a loop that starts again begins afresh. The caller has aborted
   * the signal given to keep(), so watches still opening close themselves.
   */
  async close(): Promise<void> {
    this.queue.length = 0;
    await Promise.allSettled([...this.inflight]);
    const watches = [...this.accounts.values()].flatMap((account) =>
      [...account.folders.values()].flatMap((folder) => (folder.watch ? [folder.watch] : [])),
    );
    this.accounts.clear();
    await Promise.allSettled(watches.map((watch) => watch.close()));
  }

  private announce(email: string, path: string | undefined): void {
    const account = this.accounts.get(email);
    if (!account) return;
    if (path !== undefined && (account.announced.has(path) || account.announced.size < MAX_ANNOUNCED))
      account.announced.add(path);
    else account.everywhere = true;
    this.onNews(email);
  }

  private everyFolder(email: string): FolderWatch | undefined {
    const watch = this.accounts.get(email)?.folders.get(EVERY_FOLDER)?.watch;
    return watch?.usable ? watch : undefined;
  }

  private isHeld(email: string): boolean {
    return this.held?.has(email) ?? true;
  }

  private watched(account: AccountWatches): boolean {
    if (account.pushless || account.folders.size === 0) return false;
    for (const folder of account.folders.values()) if (!folder.watch?.usable) return false;
    return true;
  }

  private accountOf(email: string): AccountWatches {
    let account = this.accounts.get(email);
    if (!account) {
      account = {
        folders: new Map(),
        pushless: false,
        announced: new Set(),
        everywhere: false,
        focused: false,
        sweepStartedAt: 0,
        lastSweptAt: Number.NEGATIVE_INFINITY,
      };
      this.accounts.set(email, account);
    }
    return account;
  }

  /** Runs `open` when fewer than WATCH_OPENS_AT_ONCE others are opening. */
  private limited(open: () => Promise<void>): void {
    this.queue.push(open);
    this.drain();
  }

  private drain(): void {
    while (this.inflight.size < WATCH_OPENS_AT_ONCE) {
      const next = this.queue.shift();
      if (!next) return;
      const running: Promise<void> = next().finally(() => {
        this.inflight.delete(running);
        this.drain();
      });
      this.inflight.add(running);
    }
  }
}
