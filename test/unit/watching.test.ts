// Push detection's timing on the injected clock: a watched account is swept on an announcement at once and
// otherwise only every SAFETY_SWEEP_MS; an account whose watch is not live (opening, dropped, server without IDLE)
// is polled every tick as before; a dropped watch comes back with backoff; close() ends every watch. An announcement
// naming a folder the last listing knows opens that folder alone; anything else lists every folder.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/log';
import { Scanner } from '../../shared/scanner/Scanner';
import type {
  FetchedHeaders,
  FolderCursor,
  FolderState,
  FolderWatch,
  MailboxConnector,
  OpenedFolder,
} from '../../shared/scanner/scannerPorts';
import { SAFETY_SWEEP_MS, watchedFolders } from '../../shared/scanner/watching';
import { ManualClock } from '../support/manualClock';
import { credentialsOf, MemoryCursors } from '../support/scannerFakes';

const log = createLogger('test', 'error', () => undefined);
const EMAIL = 'inbox@mail.test';

const FOLDERS: FolderState[] = ['INBOX', 'Junk', 'Trash', 'Archive', 'Sent'].map((path) => ({
  path,
  flags: [],
  specialUse: { Junk: '\\Junk', Trash: '\\Trash', Sent: '\\Sent' }[path],
  uidNext: 1,
  uidValidity: '1',
}));

/** Mailboxes that hold nothing, whose watches the test drives: announce, drop, or refuse IDLE. */
const watchedMailboxes = (
  options: {
    idle?: boolean;
    failOpens?: number;
    notify?: boolean;
    /** The session opens one folder alone: what it answers for each (nothing new by default). */
    openFolder?: (path: string, after: FolderCursor | undefined) => OpenedFolder;
    /** What the watch of every folder was pushed, answering an opening (FolderWatch.opened). */
    pushed?: (path: string, after: FolderCursor | undefined) => OpenedFolder | undefined;
    /** The check the store lists as waiting for the account. */
    checkId?: string;
  } = {},
) => {
  const sweeps: number[] = [];
  const opened: { path: string; at: number }[] = [];
  const fetched: string[] = [];
  const cursors = new MemoryCursors();
  const watches: { path: string; usable: boolean; closed: boolean; news: (named?: string) => void }[] = [];
  const attempts: { path: string; at: number }[] = [];
  let failOpens = options.failOpens ?? 0;
  const clock = new ManualClock();
  /** What the store lists: one check waiting for the account until a test empties it. */
  let listing = [{ checkId: options.checkId ?? 'c1', pending: [EMAIL] }];
  const recorded: { checkId: string; category: string }[] = [];
  /** The folders the watch of every folder was told to select (FolderWatch.follow). */
  const follows: string[] = [];
  // A folder's watch names its folder; the one watch of every folder names what the test says, or nothing.
  const watchOf = (path: string, onNews: (path?: string) => void): FolderWatch => {
    const watch = {
      path,
      usable: true,
      closed: false,
      news: (named?: string) => onNews(path === '*' ? named : path),
    };
    watches.push(watch);
    return {
      get usable() {
        return watch.usable;
      },
      ...(path === '*' && options.pushed
        ? {
            opened: (folder: string, after: FolderCursor | undefined) => options.pushed?.(folder, after),
            follow: (folder: string) => follows.push(folder),
          }
        : {}),
      close: async () => {
        watch.closed = true;
        watch.usable = false;
      },
    };
  };
  // `notify` undefined: a connector that cannot watch every folder at once (no watchAll at all).
  const watchAll: Pick<MailboxConnector, 'watchAll'> =
    options.notify === undefined
      ? {}
      : {
          async watchAll(_credentials, onNews) {
            attempts.push({ path: '*', at: clock.now() });
            return options.notify ? watchOf('*', onNews) : undefined;
          },
        };
  const connector: MailboxConnector = {
    ...watchAll,
    async open() {
      return {
        gmail: false,
        folders: async () => {
          sweeps.push(clock.now());
          return FOLDERS;
        },
        headersAfter: async (path: string, after: number, upTo: number) => {
          fetched.push(`${path} ${after + 1}:${upTo}`);
          return [];
        },
        headersSince: async () => [],
        tabsOf: async () => new Map(),
        close: async () => undefined,
        ...(options.openFolder
          ? {
              openFolder: async (path: string, after: FolderCursor | undefined) => {
                opened.push({ path, at: clock.now() });
                return options.openFolder?.(path, after) ?? { uidValidity: '1', uidNext: 1, messages: 0 };
              },
            }
          : {}),
      };
    },
    async watch(_credentials, path, onNews) {
      attempts.push({ path, at: clock.now() });
      if (options.idle === false) return undefined;
      if (failOpens > 0) {
        failOpens--;
        throw new Error('connection refused');
      }
      return watchOf(path, () => onNews(path));
    },
  };
  const scanner = new Scanner({
    checks: {
      listActive: async () => listing,
      settle: async () => [],
      recordResult: async (checkId: string, _email: string, category: string) => {
        recorded.push({ checkId, category });
        return 'recorded' as const;
      },
    },
    cursors,
    credentials: { get: async (email) => credentialsOf(email) },
    connector,
    clock,
    log,
    watch: true,
  });
  /** One tick, then every sweep it or an announcement started; lets queued watch opens run. */
  const tick = async () => {
    await Promise.all((await scanner.tick()).started);
    await scanner.drain();
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  /** The first sweep, the watches going live, and the sweep that follows them: the steady state from here. */
  const settle = async () => {
    await tick();
    clock.advance(1000);
    await tick();
    return { sweeps: sweeps.length, lastAt: sweeps.at(-1) ?? Number.NaN };
  };
  const listNothing = () => {
    listing = [];
  };
  return {
    scanner,
    clock,
    sweeps,
    opened,
    fetched,
    cursors,
    watches,
    attempts,
    recorded,
    follows,
    tick,
    settle,
    listNothing,
  };
};

describe('push detection (IDLE watches)', () => {
  it('watches INBOX and the junk folder only', () => {
    expect(
      watchedFolders([
        { path: 'INBOX', category: 'primary' },
        { path: 'Junk', category: 'spam' },
        { path: 'Trash', category: 'trash' },
        { path: 'Archive', category: 'unknown' },
      ]),
    ).toEqual(['INBOX', 'Junk']);
  });

  it('with NOTIFY, one watch covers every folder; without it, INBOX and junk get one each', async () => {
    const notify = watchedMailboxes({ notify: true });
    await notify.settle();
    expect(notify.watches.map((watch) => watch.path)).toEqual(['*']);
    const announced = notify.sweeps.length;
    notify.watches[0]?.news();
    await notify.scanner.drain();
    expect(notify.sweeps).toHaveLength(announced + 1);

    const plain = watchedMailboxes({ notify: false });
    await plain.settle();
    expect(plain.attempts.map((attempt) => attempt.path)).toEqual(['*', 'INBOX', 'Junk']);
    expect(plain.watches.map((watch) => watch.path)).toEqual(['INBOX', 'Junk']);
  });

  it('sweeps a watched account only every SAFETY_SWEEP_MS while nothing is announced', async () => {
    const { clock, sweeps, watches, tick, settle } = watchedMailboxes();
    await tick();
    expect(watches.map((watch) => watch.path)).toEqual(['INBOX', 'Junk']);
    // The watches just went live: one more sweep reads what landed between the first listing and their EXAMINE.
    expect(sweeps.length).toBeGreaterThanOrEqual(2);
    const steady = await settle();
    while (clock.now() + 1000 < steady.lastAt + SAFETY_SWEEP_MS) {
      clock.advance(1000);
      await tick();
    }
    expect(sweeps).toHaveLength(steady.sweeps);
    clock.advance(1000);
    await tick();
    expect(sweeps).toHaveLength(steady.sweeps + 1);
    expect(sweeps.at(-1)).toBe(steady.lastAt + SAFETY_SWEEP_MS);
  });

  it('an announcement sweeps the account at once, with no tick and no clock movement', async () => {
    const { scanner, clock, sweeps, watches, settle } = watchedMailboxes();
    const before = (await settle()).sweeps;
    const at = clock.now();
    watches[1]?.news();
    await scanner.drain();
    expect(sweeps).toHaveLength(before + 1);
    expect(sweeps.at(-1)).toBe(at);
  });

  it('an announcement sweeps the account at once even when no listed check waits for it yet', async () => {
    // A check started after the last tick's listing: its copy is announced before the next tick lists the check.
    const { scanner, clock, sweeps, watches, settle, tick, listNothing } = watchedMailboxes();
    await settle();
    listNothing();
    clock.advance(1000);
    await tick();
    const before = sweeps.length;
    const at = clock.now();
    watches[0]?.news();
    await scanner.drain();
    expect(sweeps).toEqual([...sweeps.slice(0, before), at]);
  });

  it('an announcement during a sweep is followed by one more sweep', async () => {
    const { scanner, sweeps, watches, settle } = watchedMailboxes();
    const before = (await settle()).sweeps;
    watches[0]?.news();
    // The sweep just started is busy: the second announcement cannot start another one beside it.
    watches[0]?.news();
    await scanner.drain();
    await new Promise((resolve) => setImmediate(resolve));
    await scanner.drain();
    expect(sweeps).toHaveLength(before + 2);
  });

  it('polls every tick while a watch is down, and opens it again with backoff', async () => {
    const { clock, sweeps, watches, attempts, tick, settle } = watchedMailboxes();
    await settle();
    const inbox = watches[0];
    if (!inbox) throw new Error('no INBOX watch');
    inbox.usable = false;
    const before = sweeps.length;
    const dropAt = clock.now();
    clock.advance(1000);
    await tick();
    // Polled at once (and once more when the new watch went live).
    expect(sweeps).toContain(dropAt + 1000);
    expect(sweeps.length).toBeGreaterThan(before);
    const reopened = attempts.filter((attempt) => attempt.path === 'INBOX' && attempt.at > dropAt - 1000);
    expect(reopened).toHaveLength(1);
    expect(inbox.closed).toBe(true);
  });

  it('a watch that cannot open is tried again after 1 s, then 2 s; meanwhile every tick sweeps', async () => {
    const { clock, sweeps, attempts, tick } = watchedMailboxes({ failOpens: 3 });
    const start = clock.now();
    for (let tickNo = 0; tickNo < 6; tickNo++) {
      await tick();
      expect(sweeps).toContain(clock.now());
      clock.advance(500);
    }
    const at = attempts.filter((attempt) => attempt.path !== '*').map((attempt) => attempt.at - start);
    // INBOX and Junk fail at 0; INBOX again at 1 s fails (its second failure), Junk at 1 s opens; INBOX at 3 s.
    expect(at.slice(0, 2)).toEqual([0, 0]);
    expect(at.slice(2)).toEqual([1000, 1000]);
    for (let tickNo = 0; tickNo < 4; tickNo++) {
      await tick();
      clock.advance(500);
    }
    expect(
      attempts
        .filter((attempt) => attempt.path !== '*')
        .map((attempt) => attempt.at - start)
        .slice(4),
    ).toEqual([3000]);
  });

  it('a server without IDLE is polled every tick, and no watch is tried again', async () => {
    const { clock, sweeps, attempts, tick } = watchedMailboxes({ idle: false });
    for (let tickNo = 0; tickNo < 10; tickNo++) {
      await tick();
      expect(sweeps.at(-1)).toBe(clock.now());
      clock.advance(1000);
    }
    expect(sweeps).toHaveLength(10);
    expect(attempts.filter((attempt) => attempt.path !== '*').length).toBeLessThanOrEqual(2);
  });

  it('close() ends every watch', async () => {
    const { scanner, watches, tick } = watchedMailboxes();
    await tick();
    await scanner.close();
    expect(watches.map((watch) => watch.closed)).toEqual([true, true]);
  });
});

describe('sweeps of announced folders', () => {
  const nothingNew = (): OpenedFolder => ({ uidValidity: '1', uidNext: 1, messages: 0 });
  /** What a watch of every folder was pushed: Junk's next message, `copy`; anything else it cannot answer for. */
  const pushedToJunk =
    (copy: (uid: number) => FetchedHeaders) =>
    (path: string, after: FolderCursor | undefined): OpenedFolder | undefined =>
      path === 'Junk' && after
        ? { uidValidity: '1', uidNext: after.lastUid + 2, messages: 1, headers: [copy(after.lastUid + 1)] }
        : undefined;

  it('an announcement naming a listed folder opens that folder alone, with no listing', async () => {
    const { scanner, clock, sweeps, opened, watches, settle } = watchedMailboxes({ openFolder: nothingNew });
    const before = (await settle()).sweeps;
    watches[1]?.news();
    await scanner.drain();
    expect(sweeps).toHaveLength(before);
    expect(opened).toEqual([{ path: 'Junk', at: clock.now() }]);
  });

  it('the safety sweep still lists every folder, however many announced sweeps came between', async () => {
    const { scanner, clock, sweeps, opened, watches, tick, settle } = watchedMailboxes({
      openFolder: nothingNew,
    });
    const steady = await settle();
    while (clock.now() + 1000 < steady.lastAt + SAFETY_SWEEP_MS) {
      clock.advance(1000);
      watches[0]?.news();
      await scanner.drain();
      await tick();
    }
    expect(sweeps).toHaveLength(steady.sweeps);
    expect(opened.length).toBeGreaterThanOrEqual(SAFETY_SWEEP_MS / 1000 - 2);
    clock.advance(1000);
    await tick();
    expect(sweeps).toEqual([...sweeps.slice(0, steady.sweeps), steady.lastAt + SAFETY_SWEEP_MS]);
  });

  it('an announcement as the safety sweep falls due opens its folder alone; the safety sweep follows', async () => {
    const { scanner, clock, sweeps, opened, watches, tick, settle } = watchedMailboxes({
      openFolder: nothingNew,
    });
    const steady = await settle();
    clock.advance(steady.lastAt + SAFETY_SWEEP_MS - clock.now());
    watches[1]?.news();
    await scanner.drain();
    expect([sweeps.length, opened]).toEqual([steady.sweeps, [{ path: 'Junk', at: clock.now() }]]);
    await tick();
    expect(sweeps).toEqual([...sweeps.slice(0, steady.sweeps), clock.now()]);
    // Long past it, the next announcement is read with every folder.
    clock.advance(2 * SAFETY_SWEEP_MS);
    watches[1]?.news();
    await scanner.drain();
    expect([sweeps.length, opened.length]).toEqual([steady.sweeps + 2, 1]);
  });

  it('with NOTIFY: a folder the listing does not know, or none named, lists every folder', async () => {
    const { scanner, sweeps, opened, watches, settle } = watchedMailboxes({
      notify: true,
      openFolder: nothingNew,
    });
    const before = (await settle()).sweeps;
    watches[0]?.news('Junk');
    await scanner.drain();
    expect([sweeps.length, opened.map((open) => open.path)]).toEqual([before, ['Junk']]);
    watches[0]?.news('Created since');
    await scanner.drain();
    expect(sweeps).toHaveLength(before + 1);
    watches[0]?.news();
    await scanner.drain();
    expect(sweeps).toHaveLength(before + 2);
    // A listed folder the account never reads (Sent): neither listed nor opened.
    watches[0]?.news('Sent');
    await scanner.drain();
    expect([sweeps.length, opened.length]).toEqual([before + 2, 1]);
  });

  it('new mail in the opened folder is read from what opening it fetched, and its cursor moves', async () => {
    const headers = (uid: number): FetchedHeaders => ({
      uid,
      internalDate: 0,
      headers: Buffer.from('X: y\r\n\r\n'),
    });
    const { scanner, fetched, cursors, watches, settle } = watchedMailboxes({
      openFolder: (_path, after) =>
        after?.uidValidity === '1'
          ? { uidValidity: '1', uidNext: 3, messages: 2, headers: [headers(1), headers(2)] }
          : nothingNew(),
    });
    await settle();
    expect(await cursors.get(EMAIL, 'INBOX')).toEqual({ uidValidity: '1', lastUid: 0 });
    watches[0]?.news();
    await scanner.drain();
    expect(fetched).toEqual([]);
    expect(await cursors.get(EMAIL, 'INBOX')).toEqual({ uidValidity: '1', lastUid: 2 });
  });

  it('with NOTIFY: a copy the watch was pushed is recorded with no folder opened, and the watch follows it', async () => {
    const checkId = 'h7vlvp24y7xpdm6puop3';
    const pushedCopy = (uid: number): FetchedHeaders => ({
      uid,
      internalDate: 0,
      headers: Buffer.from(`Delivered-To: inbox+tc_${checkId}@mail.test\r\n\r\n`),
    });
    const { scanner, opened, fetched, cursors, watches, recorded, follows, settle } = watchedMailboxes({
      notify: true,
      checkId,
      openFolder: nothingNew,
      // Junk's new copy came with its announcement.
      pushed: pushedToJunk(pushedCopy),
    });
    await settle();
    watches[0]?.news('Junk');
    await scanner.drain();
    expect([opened, fetched]).toEqual([[], []]);
    expect(recorded).toEqual([{ checkId, category: 'spam' }]);
    expect(await cursors.get(EMAIL, 'Junk')).toEqual({ uidValidity: '1', lastUid: 1 });
    expect(follows).toEqual(['Junk']);
    // What the pushes do not account for is opened as before.
    watches[0]?.news('Trash');
    await scanner.drain();
    expect(opened.map((open) => open.path)).toEqual(['Trash']);
  });

  it('with NOTIFY: a copy of a check the scanner does not wait for is recorded, and moves no watch', async () => {
    const waited = 'h7vlvp24y7xpdm6puop3';
    const other = 'q2zwun5rk3mb6tyx4cd7';
    let tagged = other;
    const { scanner, clock, recorded, follows, watches, settle } = watchedMailboxes({
      notify: true,
      checkId: waited,
      openFolder: nothingNew,
      // Delivered now: a check started after the listing may own it, so it is written (the store decides).
      pushed: pushedToJunk((uid) => ({
        uid,
        internalDate: clock.now(),
        headers: Buffer.from(`Delivered-To: inbox+tc_${tagged}@mail.test\r\n\r\n`),
      })),
    });
    await settle();
    watches[0]?.news('Junk');
    await scanner.drain();
    expect(recorded).toEqual([{ checkId: other, category: 'spam' }]);
    // Someone else's copy (a recent one a first sweep reads, or any sender's tag) does not steer the watch.
    expect(follows).toEqual([]);
    tagged = waited;
    watches[0]?.news('Junk');
    await scanner.drain();
    expect(recorded.at(-1)).toEqual({ checkId: waited, category: 'spam' });
    expect(follows).toEqual(['Junk']);
  });
});
