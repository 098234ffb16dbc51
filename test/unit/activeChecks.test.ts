// How the scanner keeps its list of active checks: a full listing at first and every 30 s, in between only the checks
// started lately, merged with what it knows of the older ones. Over a store that keeps the index's rules (it answers
// `since` exactly), with an injected clock and mailboxes that hold nothing.
import { describe, expect, it, vi } from 'vitest';
import { ACTIVE_MS } from '../../shared/domain/limits';
import type { RecordOutcome } from '../../shared/domain/ports';
import { createLogger } from '../../shared/log';
import { ActiveCheckPlan, UNLISTED_COPY_MARGIN_MS } from '../../shared/scanner/planning';
import { FULL_LIST_EVERY_MS, INDEX_LAG_MS, Scanner } from '../../shared/scanner/Scanner';
import type {
  ActiveChecks,
  FetchedHeaders,
  FolderState,
  PendingAccounts,
  ResultStore,
} from '../../shared/scanner/scannerPorts';
import { ManualClock } from '../support/manualClock';
import { credentialsOf, emptyMailboxes, FakeChecks, MemoryCursors } from '../support/scannerFakes';

class IndexedChecks implements ActiveChecks, ResultStore {
  readonly checks: (PendingAccounts & { createdAt: number })[] = [];
  readonly calls: (number | undefined)[] = [];
  async listActive(now: number, since?: number): Promise<PendingAccounts[]> {
    this.calls.push(since);
    return this.checks
      .filter((check) => check.createdAt >= Math.max(now - ACTIVE_MS, since ?? 0) && check.pending.length > 0)
      .map((check) => ({ ...check, pending: [...check.pending] }));
  }
  async settle() {
    return [];
  }
  async recordResult(): Promise<RecordOutcome> {
    return 'recorded';
  }
}

const setup = () => {
  const clock = new ManualClock();
  const checks = new IndexedChecks();
  const scanner = new Scanner({
    checks,
    cursors: new MemoryCursors(),
    credentials: { get: async (email) => credentialsOf(email) },
    connector: emptyMailboxes().connector,
    clock,
    log: createLogger('test', 'error'),
  });
  return { clock, checks, scanner };
};

const pendingOf = async (scanner: Scanner) => {
  const { started, pendingAccounts } = await scanner.tick();
  await Promise.all(started);
  return pendingAccounts;
};

describe('the active checks a scanner sweeps for', () => {
  it('lists everything first, then only checks started since its newest less the index lag', async () => {
    const { clock, checks, scanner } = setup();
    const t0 = clock.now();
    checks.checks.push({ checkId: 'old', createdAt: t0 - 60_000, pending: ['a@mail.test'] });
    expect(await pendingOf(scanner)).toBe(1);
    expect(checks.calls).toEqual([undefined]);

    clock.advance(1000);
    checks.checks.push({ checkId: 'new', createdAt: clock.now(), pending: ['b@mail.test'] });
    // The old check is no longer in the incremental listing's window, yet still waited for.
    expect(await pendingOf(scanner)).toBe(2);
    expect(checks.calls[1]).toBe(t0 - 60_000 - INDEX_LAG_MS);

    clock.advance(1000);
    await pendingOf(scanner);
    expect(checks.calls[2]).toBe(clock.now() - 1000 - INDEX_LAG_MS);
  });

  it('drops a check of the listed window that the store no longer lists, and keeps older ones until a full listing', async () => {
    const { clock, checks, scanner } = setup();
    checks.checks.push(
      { checkId: 'old', createdAt: clock.now() - 60_000, pending: ['a@mail.test'] },
      { checkId: 'recent', createdAt: clock.now(), pending: ['b@mail.test'] },
    );
    expect(await pendingOf(scanner)).toBe(2);
    // Both completed elsewhere: the recent one is seen at once, the old one at the next full listing.
    for (const check of checks.checks) check.pending = [];
    clock.advance(1000);
    expect(await pendingOf(scanner)).toBe(1);
    clock.advance(FULL_LIST_EVERY_MS);
    expect(await pendingOf(scanner)).toBe(0);
    expect(checks.calls.at(-1)).toBeUndefined();
  });

  it('forgets a check after its active minutes without being told', async () => {
    const { clock, checks, scanner } = setup();
    checks.checks.push({ checkId: 'c', createdAt: clock.now(), pending: ['a@mail.test'] });
    expect(await pendingOf(scanner)).toBe(1);
    clock.advance(ACTIVE_MS + 1);
    expect(await pendingOf(scanner)).toBe(0);
  });

  it('narrows a known check to what both it and the store still wait for', async () => {
    const { clock, checks, scanner } = setup();
    const check = { checkId: 'c', createdAt: clock.now(), pending: ['a@mail.test', 'b@mail.test'] };
    checks.checks.push(check);
    expect(await pendingOf(scanner)).toBe(2);
    check.pending = ['b@mail.test'];
    clock.advance(1000);
    expect(await pendingOf(scanner)).toBe(1);
    // The store cannot bring back an account once it is in.
    check.pending = ['a@mail.test', 'b@mail.test'];
    clock.advance(1000);
    expect(await pendingOf(scanner)).toBe(1);
  });

  it('lists everything again when its clock goes back, and never lets a check stamped ahead hide later ones', async () => {
    const { clock, checks, scanner } = setup();
    // Stamped a minute ahead by another machine's clock.
    checks.checks.push({ checkId: 'ahead', createdAt: clock.now() + 60_000, pending: ['a@mail.test'] });
    expect(await pendingOf(scanner)).toBe(1);
    clock.advance(1000);
    checks.checks.push({ checkId: 'now', createdAt: clock.now(), pending: ['b@mail.test'] });
    expect(await pendingOf(scanner)).toBe(2);
    clock.advance(-120_000);
    checks.checks.push({ checkId: 'back', createdAt: clock.now(), pending: ['c@mail.test'] });
    await pendingOf(scanner);
    expect(checks.calls.at(-1)).toBeUndefined();
  });
});

describe('a check whose listing keeps the accounts it was started with (a shard entry)', () => {
  /** Lists the same accounts every time, as a shard's own entry does until the check is settled. */
  const stale = (checks: PendingAccounts[]): ActiveChecks => ({
    listActive: async () => checks.map((check) => ({ ...check, pending: [...check.pending] })),
    settle: async () => [],
  });

  it('leaves out an account placed before any listing showed its check, even when the store still counts it', async () => {
    // An announcement swept the account before the next tick listed the check; the index may lag the result's write.
    const clock = new ManualClock();
    const t0 = clock.now();
    const plan = new ActiveCheckPlan(
      stale([{ checkId: 'new', createdAt: t0, pending: ['a@mail.test', 'b@mail.test'] }]),
    );
    plan.placed('new', 'a@mail.test', false, 0);
    plan.placed('forged', 'a@mail.test', false, 0);
    const ids = async () => (await plan.list(clock.now())).map((check) => [...check.pending].join());
    expect(await ids()).toEqual(['b@mail.test']);
    clock.advance(1000);
    expect(await ids()).toEqual(['b@mail.test']);
    plan.placed('new', 'b@mail.test', false, 0);
    clock.advance(1000);
    expect(await ids()).toEqual([]);
  });

  it('is not brought back by later listings once this scanner placed every account, nor after it closed', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const plan = new ActiveCheckPlan(
      stale([
        { checkId: 'placed', createdAt: t0, pending: ['a@mail.test', 'b@mail.test'] },
        { checkId: 'closed', createdAt: t0, pending: ['c@mail.test'] },
        { checkId: 'waiting', createdAt: t0, pending: ['d@mail.test'] },
      ]),
    );
    const ids = async () => (await plan.list(clock.now())).map((check) => [...check.pending].join());
    expect(await ids()).toEqual(['a@mail.test,b@mail.test', 'c@mail.test', 'd@mail.test']);
    plan.placed('placed', 'a@mail.test', false, 0);
    plan.placed('placed', 'b@mail.test', false, 0);
    plan.placed('closed', 'c@mail.test', true, 0);
    clock.advance(1000);
    expect(await ids()).toEqual(['d@mail.test']);
    // A full listing too, later in the checks' window.
    clock.advance(FULL_LIST_EVERY_MS);
    expect(await ids()).toEqual(['d@mail.test']);
  });
});

/** A scanner over one account whose folders are `folders` and whose first sight of a folder reads `since(path)`. */
const firstSightScanner = (
  clock: ManualClock,
  checks: FakeChecks,
  folders: FolderState[],
  since: (path: string) => FetchedHeaders[],
) => {
  const cursors = new MemoryCursors();
  const scanner = new Scanner({
    checks,
    cursors,
    credentials: { get: async (email) => credentialsOf(email) },
    connector: {
      async open() {
        return {
          gmail: false,
          folders: async () => folders,
          headersAfter: async () => [],
          headersSince: async (path: string) => since(path),
          tabsOf: async () => new Map(),
          close: async () => undefined,
        };
      },
    },
    clock,
    log: createLogger('test', 'error'),
  });
  return { scanner, cursors };
};

const EMAIL = 'inbox@mail.test';
/** A copy of `checkId` in EMAIL's mailbox, delivered at `internalDate`. */
const copyOf = (uid: number, checkId: string, internalDate: number) => ({
  uid,
  internalDate,
  headers: Buffer.from(`Delivered-To: inbox+tc_${checkId}@mail.test\r\nSubject: test\r\n\r\n`),
});

describe('copies a first sweep finds of checks no listing shows', () => {
  it('writes none delivered well before the listing, and every one of a listed check or delivered since', async () => {
    const clock = new ManualClock();
    const now = clock.now();
    const ended = 'endedendedendedended';
    const listed = 'listedlistedlistedli';
    const unlisted = 'unlistedunlistedunli';
    const messages = [
      copyOf(1, ended, now - 4 * 60_000),
      copyOf(2, listed, now - 4 * 60_000),
      // A check started after the listing (an announcement can bring its copy before the next tick lists it).
      copyOf(3, unlisted, now - 1000),
      // Within the margin of the listing: the mail server's clock may be behind ours.
      copyOf(4, ended, now - UNLISTED_COPY_MARGIN_MS + 1000),
    ];
    const checks = new FakeChecks([{ checkId: listed, accounts: [EMAIL], createdAt: now - 4 * 60_000 }]);
    const folder = { path: 'INBOX', flags: [], uidNext: 5, uidValidity: '1' };
    const { scanner } = firstSightScanner(clock, checks, [folder], () => messages);
    const [sweep] = await scanner.sweepOnce();
    expect(sweep?.ok).toBe(true);
    expect(checks.calls.map(({ checkId }) => checkId).sort()).toEqual([ended, listed, unlisted].sort());
  });
});

describe("a loop's first sweep", () => {
  it("reads no folder its status says is empty, and moves that cursor to the folder's next UID", async () => {
    const clock = new ManualClock();
    const read: string[] = [];
    const folders = [
      { path: 'INBOX', flags: [], uidNext: 7, uidValidity: '1', messages: 0 },
      { path: 'Junk', flags: [], specialUse: '\\Junk', uidNext: 3, uidValidity: '1', messages: 2 },
      // A server that did not say how many: read as before.
      { path: 'Trash', flags: [], specialUse: '\\Trash', uidNext: 1, uidValidity: '1' },
    ];
    const checks = new FakeChecks([{ checkId: 'c1', accounts: ['inbox@mail.test'] }]);
    const { scanner, cursors } = firstSightScanner(clock, checks, folders, (path) => {
      read.push(path);
      return [];
    });
    const [sweep] = await scanner.sweepOnce();
    expect(sweep?.ok).toBe(true);
    expect(read).toEqual(['Junk', 'Trash']);
    expect(await cursors.get('inbox@mail.test', 'INBOX')).toEqual({ uidValidity: '1', lastUid: 6 });
  });
});

describe("a loop's first listing, read page by page", () => {
  /** FakeChecks whose listing tells its first check as a page, then waits for `rest` before the others. */
  class PagedChecks extends FakeChecks {
    private release: () => void = () => undefined;
    private readonly rest = new Promise<void>((resolve) => {
      this.release = resolve;
    });
    /** Lets the listing read on past its first page. */
    readRest() {
      this.release();
    }
    override async listActive(
      now: number,
      _since?: number,
      onPage?: (page: readonly PendingAccounts[]) => void,
    ): Promise<PendingAccounts[]> {
      const all = await super.listActive(now);
      onPage?.(all.slice(0, 1));
      await this.rest;
      onPage?.(all.slice(1));
      return all;
    }
  }

  it('logs in while the rest is read, and judges older copies only once the listing is whole', async () => {
    const clock = new ManualClock();
    const now = clock.now();
    const [first, later, ended, fresh] = [
      'firstfirstfirstfirst',
      'laterlaterlaterlater',
      'endedendedendedended',
      'freshfreshfreshfresh',
    ];
    // The account's first check is on the first page and has no copy. In Junk, two copies delivered well before the
    // listing: one of a check only the second page shows, one of a check no page shows. Judged before the listing is
    // whole, the first check would not be known yet and the second not known to be over. In INBOX, read first, a
    // copy delivered a second ago of a check no page shows: recent enough to be written whatever the listing says.
    const byFolder: Record<string, FetchedHeaders[]> = {
      INBOX: [copyOf(1, fresh, now - 1000)],
      Junk: [copyOf(1, later, now - 4 * 60_000), copyOf(2, ended, now - 4 * 60_000)],
    };
    const checks = new PagedChecks([
      { checkId: first, accounts: [EMAIL], createdAt: now - 4 * 60_000 },
      { checkId: later, accounts: [EMAIL], createdAt: now - 4 * 60_000 },
    ]);
    const opened: string[] = [];
    const folders = [
      { path: 'INBOX', flags: [], uidNext: 2, uidValidity: '1' },
      { path: 'Junk', flags: [], specialUse: '\\Junk', uidNext: 3, uidValidity: '1' },
    ];
    const scanner = new Scanner({
      checks,
      cursors: new MemoryCursors(),
      credentials: { get: async (email) => credentialsOf(email) },
      connector: {
        async open(credentials) {
          opened.push(credentials.email);
          return {
            gmail: false,
            folders: async () => folders,
            headersAfter: async () => [],
            headersSince: async (path: string) => byFolder[path] ?? [],
            tabsOf: async () => new Map(),
            close: async () => undefined,
          };
        },
      },
      clock,
      log: createLogger('test', 'error'),
    });
    const ticked = scanner.tick();
    // The first page's account logs in and reads while the listing waits for the rest; it writes the recent copy,
    // and nothing of the older ones yet.
    await vi.waitFor(() => expect(checks.calls.map(({ checkId }) => checkId)).toEqual([fresh]));
    expect(opened).toEqual([EMAIL]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(checks.calls.map(({ checkId }) => checkId)).toEqual([fresh]);
    checks.readRest();
    const { started } = await ticked;
    const sweeps = await Promise.all(started);
    expect(sweeps.map((sweep) => [sweep.email, sweep.ok])).toEqual([[EMAIL, true]]);
    expect(opened).toEqual([EMAIL]);
    expect(checks.calls.map(({ checkId }) => checkId)).toEqual([fresh, later]);
  });
});
