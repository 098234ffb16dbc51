// Bounded sweeps at the protocol level: the real Scanner, ImapConnector and imapflow against the scripted IMAP
// server, over a folder whose backlog is many batches long. Every fetch spans at most FETCH_BATCH UIDs, the newest
// batch is read first, the cursor is written after each batch, and a failure mid-drain resumes from the last one.
import { describe, expect, it, vi } from 'vitest';
import {
  type ScriptedFolder,
  type ScriptedImap,
  startScriptedImap,
} from '../../scripts/lib/scriptedImapServer';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { newCheckId } from '../../shared/domain/checkId';
import { createLogger } from '../../shared/log';
import { FETCH_BATCH, SWEEP_BATCHES } from '../../shared/scanner/folderReads';
import { type AccountSweep, Scanner } from '../../shared/scanner/Scanner';
import type { FolderCursor, MailboxConnector, MailboxSession } from '../../shared/scanner/scannerPorts';
import { cleanupsAfterEach } from '../support/cleanups';
import { ManualClock } from '../support/manualClock';
import { FakeChecks, MemoryCursors } from '../support/scannerFakes';
import { SEED as ACCOUNT, DOVECOT_LIKE, seedCredentialSource, seedMessage } from '../support/scriptedSeed';

const BACKLOG = 3000;
const UIDVALIDITY = 77;

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

/**
 * Writes that moved INBOX's cursor, in order (a write carries every folder's cursor, so one that moved another
 * folder repeats INBOX's), and the INBOX cursor in the store when each result was written.
 */
class WatchedCursors extends MemoryCursors {
  readonly inboxWrites: number[] = [];
  override async putAll(email: string, cursors: ReadonlyMap<string, FolderCursor>) {
    const inbox = cursors.get('INBOX');
    if (inbox && inbox.lastUid !== this.inbox()) this.inboxWrites.push(inbox.lastUid);
    await super.putAll(email, cursors);
  }
  inbox(): number | undefined {
    return this.byKey.get(`${ACCOUNT} INBOX`)?.lastUid;
  }
}

/**
 * A Dovecot-like scripted server whose INBOX holds `BACKLOG` messages above a cursor at 0 (they arrived while nothing
 * read it), tagged for the given checks at the given UIDs, and a Scanner over it that polls; with `watch`, it also
 * holds a watch whose announcements the test makes (`announce`). `afterFetch` runs one step after each header fetch.
 */
const setUp = async (
  tagged: Record<number, string>,
  { uids = Array.from({ length: BACKLOG }, (_, index) => index + 1), watch = false } = {},
) => {
  const inbox: ScriptedFolder = {
    path: 'INBOX',
    attributes: ['\\HasNoChildren'],
    uidValidity: UIDVALIDITY,
    messages: uids.map((uid) => seedMessage(uid, clock.now(), tagged[uid])),
  };
  const server = await startScriptedImap({
    ...DOVECOT_LIKE,
    folders: [
      inbox,
      { path: 'Junk', attributes: ['\\HasNoChildren', '\\Junk'], uidValidity: 78, messages: [] },
    ],
  });
  const checks = new FakeChecks(
    [...new Set(Object.values(tagged))].map((checkId) => ({ checkId, accounts: [ACCOUNT] })),
  );
  const cursors = new WatchedCursors();
  await cursors.put(ACCOUNT, 'INBOX', { uidValidity: String(UIDVALIDITY), lastUid: 0 });
  const recordedAt = new Map<string, number | undefined>();
  const record = checks.recordResult.bind(checks);
  checks.recordResult = async (checkId, email, category, now) => {
    recordedAt.set(checkId, cursors.inbox());
    return record(checkId, email, category, now);
  };
  const sweeps: AccountSweep[] = [];
  const onSwept: ((sweep: AccountSweep) => void)[] = [];
  const log = createLogger('test', 'error', () => undefined);
  const imap = new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: 5000 });
  const afterFetch: (() => void)[] = [];
  const watching = { announce: (): void => undefined, end: (): void => undefined };
  const connector: MailboxConnector = {
    async open(credentials, signal) {
      const session = await imap.open(credentials, signal);
      const stepped: MailboxSession = {
        gmail: session.gmail,
        folders: () => session.folders(),
        headersAfter: async (path, afterUid, upToUid) => {
          const found = await session.headersAfter(path, afterUid, upToUid);
          afterFetch.shift()?.();
          return found;
        },
        headersSince: (path, since) => session.headersSince(path, since),
        tabsOf: (path, uids) => session.tabsOf(path, uids),
        close: () => session.close(),
      };
      return stepped;
    },
    // Announcements come when the test says; the watch never goes live, so nothing else sets news.
    ...(watch
      ? {
          watchAll: (_credentials, onNews) => {
            watching.announce = onNews;
            return new Promise((resolve) => {
              watching.end = () => resolve(undefined);
            });
          },
        }
      : {}),
  };
  const scanner = new Scanner({
    checks,
    cursors,
    credentials: seedCredentialSource(server),
    connector,
    clock,
    log,
    watch,
    events: {
      swept: (sweep) => {
        sweeps.push(sweep);
        onSwept.shift()?.(sweep);
      },
    },
  });
  cleanups.push(
    () => server.close(),
    () => scanner.close(),
    async () => watching.end(),
  );
  return { server, inbox, scanner, checks, cursors, recordedAt, sweeps, onSwept, afterFetch, watching };
};

/** The UID ranges of every header fetch, in order. */
const fetched = (server: ScriptedImap) =>
  server.commands.flatMap((command) => {
    const range = /^UID FETCH (\d+):(\d+) /i.exec(command);
    return range ? [{ from: Number(range[1]), to: Number(range[2]) }] : [];
  });

describe('a backlog many batches long', () => {
  it('is fetched in batches, newest first, with the cursor written after each; a copy delivered meanwhile is read before the rest', async () => {
    const [early, newest, during] = [newCheckId(), newCheckId(), newCheckId()];
    const { server, inbox, scanner, checks, cursors, recordedAt, sweeps, onSwept } = await setUp({
      10: early,
      2990: newest,
    });
    // A new check's copy lands while the first sweep drains: it is there for the next one.
    onSwept.push(() => inbox.messages.push(seedMessage(BACKLOG + 1, clock.now(), during)));

    const [first] = await scanner.sweepOnce();
    // One sweep is bounded: the newest batch and SWEEP_BATCHES oldest-first ones, then the next sweep follows.
    expect(first).toMatchObject({ ok: true, messagesFetched: FETCH_BATCH * (SWEEP_BATCHES + 1) });
    expect(cursors.inbox()).toBe(FETCH_BATCH * SWEEP_BATCHES);
    await vi.waitFor(() => expect(cursors.inbox()).toBe(BACKLOG + 1), { timeout: 10_000, interval: 20 });

    const ranges = fetched(server);
    expect(ranges.every(({ from, to }) => to - from + 1 <= FETCH_BATCH)).toBe(true);
    expect(ranges[0]).toEqual({ from: BACKLOG - FETCH_BATCH + 1, to: BACKLOG });
    // Every UID fetched exactly once: what was read ahead is stepped over, not read again.
    const uids = ranges.flatMap(({ from, to }) => Array.from({ length: to - from + 1 }, (_, i) => from + i));
    expect(uids.sort((a, b) => a - b)).toEqual(Array.from({ length: BACKLOG + 1 }, (_, i) => i + 1));
    // The copy delivered during the drain came first in the next sweep, before the backlog's remaining batches.
    const second = ranges.findIndex(({ from }) => from === BACKLOG + 1);
    const rest = ranges.findIndex(({ from }) => from === FETCH_BATCH * SWEEP_BATCHES + 1);
    expect(second).toBeGreaterThan(0);
    expect(second).toBeLessThan(rest);

    // The cursor moved batch by batch, each write after that batch's results.
    const steps = Array.from(
      { length: (BACKLOG - FETCH_BATCH) / FETCH_BATCH },
      (_, i) => (i + 1) * FETCH_BATCH,
    );
    expect(cursors.inboxWrites).toEqual([...steps, BACKLOG + 1]);
    // Each copy recorded once; the newest ones while the backlog below them was still unread.
    expect(checks.calls.map(({ checkId }) => checkId).sort()).toEqual([early, newest, during].sort());
    expect(recordedAt.get(newest)).toBe(0);
    expect(recordedAt.get(during)).toBe(FETCH_BATCH * SWEEP_BATCHES);
    expect(recordedAt.get(early)).toBe(0);
    expect(sweeps.every((sweep) => sweep.ok)).toBe(true);
    expect(sweeps.length).toBeGreaterThan(1);
  });

  it('resumes from the last batch written after a failure mid-drain, reading no batch twice', async () => {
    const [low, middle] = [newCheckId(), newCheckId()];
    const { server, scanner, checks, cursors, sweeps } = await setUp({ 5: low, 1100: middle });
    // The fifth oldest-first batch is refused, as a briefly failing server would.
    server.refuse = /^UID FETCH 1001:/i;

    const [failed] = await scanner.sweepOnce();
    expect(failed?.ok).toBe(false);
    expect(cursors.inbox()).toBe(1000);
    expect(checks.calls.map(({ checkId }) => checkId)).toEqual([low]);

    server.refuse = undefined;
    const before = fetched(server).length;
    // Past the backoff of one failure, on the injected clock.
    clock.advance(1000);
    await scanner.sweepOnce();
    await vi.waitFor(() => expect(cursors.inbox()).toBe(BACKLOG), { timeout: 10_000, interval: 20 });
    const after = fetched(server).slice(before);
    // From the last batch written, not from the start; the newest batch, read before the failure, not again.
    expect(after[0]).toEqual({ from: 1001, to: 1250 });
    expect(after.every(({ from, to }) => from > 1000 && to <= BACKLOG - FETCH_BATCH)).toBe(true);
    expect(checks.calls.map(({ checkId }) => checkId).sort()).toEqual([low, middle].sort());
    expect(sweeps.filter((sweep) => !sweep.ok)).toHaveLength(1);
  });

  it('reads a folder holding no more than a batch in one fetch, however far apart its UIDs are', async () => {
    const check = newCheckId();
    const { server, scanner, checks, cursors } = await setUp({ 90000: check }, { uids: [7, 40_000, 90_000] });
    const [sweep] = await scanner.sweepOnce();
    expect(sweep?.ok).toBe(true);
    // STATUS MESSAGES says 3: one fetch over the whole range instead of one per FETCH_BATCH UIDs of gaps.
    expect(fetched(server)).toEqual([{ from: 1, to: 90_000 }]);
    expect(cursors.inbox()).toBe(90_000);
    expect(checks.calls.map(({ checkId }) => checkId)).toEqual([check]);
  });

  it('ends the oldest-first batches at an announcement; the next sweep follows at once and reads the newest first', async () => {
    const [waiting, late] = [newCheckId(), newCheckId()];
    // Both checks wait for the account; the late one's copy is not in the mailbox yet.
    const { server, inbox, scanner, cursors, recordedAt, afterFetch, watching } = await setUp(
      { 5: waiting, [BACKLOG + 1]: late },
      { watch: true },
    );
    // After the newest batch and two oldest-first ones, a new check's copy lands and the server announces it.
    const nothing = () => undefined;
    afterFetch.push(nothing, nothing, () => {
      inbox.messages.push(seedMessage(BACKLOG + 1, clock.now(), late));
      watching.announce();
    });

    const [first] = await scanner.sweepOnce();
    // The batch in flight finished and was written; the other SWEEP_BATCHES - 2 were left for the next sweeps.
    expect(first).toMatchObject({ ok: true, messagesFetched: 3 * FETCH_BATCH });
    expect(cursors.inbox()).toBe(2 * FETCH_BATCH);
    await vi.waitFor(() => expect(cursors.inbox()).toBe(BACKLOG + 1), { timeout: 10_000, interval: 20 });
    const ranges = fetched(server);
    expect(ranges[3]).toEqual({ from: BACKLOG + 1, to: BACKLOG + 1 });
    expect(recordedAt.get(late)).toBe(2 * FETCH_BATCH);
  });
});
