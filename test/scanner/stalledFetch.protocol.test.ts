// A fetch that misses its deadline, at the protocol level: the real Scanner, ImapConnector and imapflow against the
// scripted IMAP server, which never answers a header fetch that includes one given UID (as a server too slow to
// serve a sender's header block would not). The sweep halves its fetches down to that UID, skips it alone, reads
// the rest, and the account stays healthy.
import { describe, expect, it, vi } from 'vitest';
import { startScriptedImap } from '../../scripts/lib/scriptedImapServer';
import { ImapConnector } from '../../shared/adapters/imap/ImapConnector';
import { newCheckId } from '../../shared/domain/checkId';
import { createLogger } from '../../shared/log';
import { type AccountSweep, Scanner } from '../../shared/scanner/Scanner';
import { cleanupsAfterEach } from '../support/cleanups';
import { ManualClock } from '../support/manualClock';
import { FakeChecks, MemoryCursors } from '../support/scannerFakes';
import { SEED as ACCOUNT, DOVECOT_LIKE, seedCredentialSource, seedMessage } from '../support/scriptedSeed';

const MESSAGES = 40;
const SLOW_UID = 13;
/** Each call's deadline: short, so the halving takes a few seconds, not minutes. */
const ANSWER_MS = 300;

const clock = new ManualClock();
const cleanups = cleanupsAfterEach();

/** The UIDs a `UID FETCH <set> …` command names (ranges and lists), or none for any other command. */
const uidsOf = (command: string): number[] => {
  const set = /^UID FETCH ([\d:,]+) /i.exec(command)?.[1];
  return (set ?? '').split(',').flatMap((part) => {
    const [from = 0, to = from] = part.split(':').map(Number);
    return part ? Array.from({ length: to - from + 1 }, (_, index) => from + index) : [];
  });
};

describe('a message the server cannot hand over within the deadline', () => {
  it('is skipped alone, by halving: the rest is read, the cursor passes it, and the account stays healthy', async () => {
    const [before, after] = [newCheckId(), newCheckId()];
    const tagged: Record<number, string> = { 5: before, 30: after };
    const server = await startScriptedImap({
      ...DOVECOT_LIKE,
      folders: [
        {
          path: 'INBOX',
          attributes: ['\\HasNoChildren'],
          uidValidity: 7,
          messages: Array.from({ length: MESSAGES }, (_, index) =>
            seedMessage(index + 1, clock.now(), tagged[index + 1]),
          ),
        },
      ],
    });
    server.stall = (command) => uidsOf(command).includes(SLOW_UID);
    const checks = new FakeChecks([before, after].map((checkId) => ({ checkId, accounts: [ACCOUNT] })));
    const cursors = new MemoryCursors();
    await cursors.put(ACCOUNT, 'INBOX', { uidValidity: '7', lastUid: 0 });
    const failures: string[] = [];
    const skipped: { email: string; path: string; uid: number }[] = [];
    const sweeps: AccountSweep[] = [];
    const log = createLogger('test', 'error', () => undefined);
    const scanner = new Scanner({
      checks,
      cursors,
      credentials: seedCredentialSource(server),
      health: {
        recordFailure: async (email) => failures.push(email) < 0,
        recordSuccess: async () => false,
        listFailing: async () => [],
      },
      unhealthyAfter: 1,
      connector: new ImapConnector(log, { connectMs: 2000, greetingMs: 2000, socketMs: ANSWER_MS }),
      clock,
      log,
      events: { swept: (sweep) => sweeps.push(sweep), skipped: (skip) => skipped.push(skip) },
    });
    cleanups.push(
      () => server.close(),
      () => scanner.close(),
    );

    await scanner.sweepOnce();
    // Each stalled sweep is followed by the next at once, with the missed range halved.
    await vi.waitFor(() => expect(cursors.byKey.get(`${ACCOUNT} INBOX`)?.lastUid).toBe(MESSAGES), {
      timeout: 20_000,
      interval: 20,
    });
    await scanner.drain();

    const fetches = server.commands.map(uidsOf).filter((uids) => uids.length > 0);
    const missed = fetches.filter((uids) => uids.includes(SLOW_UID));
    // Halved each time it was missed (doubled back after an answer), down to the one UID, then skipped: never
    // fetched again, and missed only a bounded number of times.
    expect(missed[0]).toHaveLength(MESSAGES);
    expect(missed.at(-1)).toEqual([SLOW_UID]);
    expect(missed.slice(1).every((uids, index) => uids.length <= (missed[index]?.length ?? 0))).toBe(true);
    expect(missed.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(MESSAGES)));
    expect(skipped).toEqual([{ email: ACCOUNT, path: 'INBOX', uid: SLOW_UID, reason: 'deadline' }]);
    // Every other UID was read, the check's copy after the skipped one included.
    const read = new Set(fetches.filter((uids) => !uids.includes(SLOW_UID)).flat());
    expect([...read].sort((a, b) => a - b)).toEqual(
      Array.from({ length: MESSAGES }, (_, index) => index + 1).filter((uid) => uid !== SLOW_UID),
    );
    expect(checks.calls.map(({ checkId }) => checkId).sort()).toEqual([before, after].sort());
    // Progress, not failure: no sweep failed, and nothing was counted against the account.
    expect(sweeps.length).toBeGreaterThan(missed.length);
    expect(sweeps.every((sweep) => sweep.ok && sweep.consecutiveFailures === 0)).toBe(true);
    expect(failures).toEqual([]);
  });
});
