// Push detection against the real Dovecot: while a check waits and nothing arrives an account costs at most 6 IMAP
// commands a minute (counted by a proxy in front of the server, logins included), and a delivered copy is recorded
// on the server's IDLE announcement, before the safety sweep that would otherwise have found it, by opening the folder
// the announcement named: no listing of every folder first; or, in the folder the NOTIFY watch has selected (INBOX,
// then the one copies last landed in), from the headers NOTIFY pushed with the announcement: nothing opened at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../scripts/lib/poll';
import { newCheckId } from '../../shared/domain/checkId';
import { ACTIVE_MS } from '../../shared/domain/limits';
import { LocalScanRunner } from '../../shared/local/LocalScanRunner';
import { createLogger } from '../../shared/log';
import { SAFETY_SWEEP_MS } from '../../shared/scanner/watching';
import { GTUBE, sendOnce, stackAccount } from '../support/mailStack';
import { type ScanHarness, startScanHarness } from '../support/scanHarness';
import { measureWaitingCommands } from '../support/waitingCommands';

const silent = createLogger('test', 'error', () => undefined);

describe('quiet while waiting', () => {
  it('costs at most 6 IMAP commands per account-minute while a check waits and nothing arrives', async () => {
    const measured = await measureWaitingCommands({
      accounts: ['user004@mail.test', 'user005@mail.test', 'user006@mail.test'].map(stackAccount),
      windowMs: 60_000,
    });
    // The figure for the report (docs/scanner.md says what it counts), as imapFaults.test.ts prints its own.
    console.info(`waiting commands ${JSON.stringify(measured)}`);
    expect(measured.windowMs).toBeGreaterThanOrEqual(60_000);
    expect(measured.maxPerAccountMinute).toBeLessThanOrEqual(6);
    // Not zero either: the safety sweeps are still there.
    expect(measured.perAccountMinute).toBeGreaterThan(0);
  }, 150_000);
});

/** Commands stamped as they arrive, so a test can wait until an account's sessions have gone quiet. */
const stamps = new WeakMap<object, number>();
const QUIET_MS = 1000;
const quietFor = (commands: readonly object[]): boolean => {
  const now = Date.now();
  for (const command of commands) if (!stamps.has(command)) stamps.set(command, now);
  const last = commands.at(-1);
  return last === undefined || now - (stamps.get(last) ?? now) >= QUIET_MS;
};

/** Time left before the next safety sweep when the message is sent: delivery through SpamAssassin fits in it. */
const HEADROOM_MS = 15_000;

describe('detection on announcement', () => {
  const ACCOUNTS = ['inbox@mail.test', 'junk@mail.test'];
  let harness: ScanHarness;
  let runner: LocalScanRunner | undefined;

  beforeAll(async () => {
    harness = await startScanHarness(ACCOUNTS.map((email) => ({ ...stackAccount(email), scope: 'idle' })));
  });
  afterAll(async () => {
    await runner?.stop();
    await harness?.close();
  });

  /**
   * Sends GTUBE to the check's accounts (SpamAssassin scores it spam, and junk@'s sieve files it in Junk) and waits
   * until both copies are recorded, each in its folder's category; prints how long each took.
   */
  const sendUntilRecorded = async (check: { check_id: string; accounts: string[] }, subject: string) => {
    const clock = harness.service.clock;
    const commandsBefore = harness.commands.length;
    const sentAt = clock.now();
    await sendOnce(check.accounts, { subject, text: GTUBE });
    const recorded = () =>
      harness.placements.filter(
        (placement) => placement.checkId === check.check_id && placement.outcome === 'recorded',
      );
    await pollUntil(recorded, (found) => found.length >= 2, { timeoutMs: 60_000, intervalMs: 50 });
    console.info(
      `${subject} ${JSON.stringify(recorded().map((p) => ({ email: p.email, ms: p.recordedAt - sentAt })))}`,
    );
    expect(Object.fromEntries(recorded().map((placement) => [placement.email, placement.category]))).toEqual({
      'inbox@mail.test': 'primary',
      'junk@mail.test': 'spam',
    });
    return { recorded: recorded(), commandsBefore };
  };

  it('records a copy in INBOX and one in Junk before the next safety sweep was due', async () => {
    const check = await harness.startQuietly('idle');
    // Held for the whole check: the copy goes out a safety sweep's distance after the watches go live.
    const { scanner, lease } = harness.newScanner({ patienceMs: ACTIVE_MS });
    const clock = harness.service.clock;
    runner = new LocalScanRunner(
      { scanner, lease, clock, log: silent },
      { intervalMs: 250, leaseTtlMs: 5000, idleGraceMs: 3000 },
    );
    runner.start();
    const liveWatches = () => harness.watches.filter((watch) => watch.state === 'watching');
    const lastSweepsOf = () =>
      ACCOUNTS.map((email) =>
        Math.max(...harness.sweeps.filter((sweep) => sweep.email === email).map((sweep) => sweep.at)),
      );
    const quietTicksSince = (at: number) => harness.ticks.filter((tick) => tick > at).length;
    // A copy of another check lands in junk@'s Junk while the watches are live (mail of an earlier test file can
    // come late, and any sender can write a tag): it is recorded, as a check started after the listing may own it,
    // and must not move junk@'s watch to Junk, or the copy below would come pushed, with nothing opened.
    await pollUntil(liveWatches, (live) => live.length === 2, { timeoutMs: 30_000 });
    const another = newCheckId();
    await sendOnce([`junk+tc_${another}@mail.test`], { subject: 'another check', text: GTUBE });
    const copy = await pollUntil(
      () => harness.placements.find((placement) => placement.checkId === another),
      Boolean,
      { timeoutMs: 60_000, intervalMs: 50 },
    );
    expect(copy?.category).toBe('spam');
    // The end of the sweep that read it (it opened Junk alone): the steady state below needs a full one after it.
    const readIt = await pollUntil(
      () =>
        harness.sweeps.find(
          (sweep) => sweep.email === 'junk@mail.test' && sweep.at >= (copy?.recordedAt ?? 0),
        ),
      Boolean,
      { timeoutMs: 10_000, intervalMs: 50 },
    );
    const anotherAt = readIt?.at ?? Number.POSITIVE_INFINITY;
    // Steady state, however busy the machine: both watches live, each account swept once since its watch went
    // live (the sweep for mail that landed before the watch's EXAMINE), then ticks with no sweep.
    // And far enough from the next safety sweep that only an announcement can explain a copy found before it (on a
    // busy machine the steady state may come late, just before a safety sweep: then wait for that one to pass).
    await pollUntil(
      () => ({ live: liveWatches(), lastSweeps: lastSweepsOf() }),
      ({ live, lastSweeps }) =>
        live.length === 2 &&
        lastSweeps.every((at) => at >= Math.max(...live.map((watch) => watch.at))) &&
        // A full sweep since the one that read the other check's copy.
        lastSweeps.every((at) => at > anotherAt) &&
        quietTicksSince(Math.max(...lastSweeps)) >= 3 &&
        clock.now() < Math.min(...lastSweeps) + SAFETY_SWEEP_MS - HEADROOM_MS,
      { timeoutMs: 30_000 + SAFETY_SWEEP_MS },
    );
    // Dovecot offers NOTIFY: one watch per account covers every folder.
    expect(liveWatches().map((watch) => watch.path)).toEqual(['*', '*']);
    const quietUntil = clock.now();
    const lastSweeps = lastSweepsOf();
    const lastSweep = Math.max(...lastSweeps);
    const quietTicks = harness.ticks.filter((at) => at > lastSweep && at <= quietUntil).length;
    // Watched accounts are not polled: at a 250 ms interval, 2 s hold several ticks without a sweep.
    expect(quietTicks).toBeGreaterThanOrEqual(3);

    const { recorded, commandsBefore } = await sendUntilRecorded(check, 'announced by IDLE');
    for (const [index, email] of ACCOUNTS.entries()) {
      const placement = recorded.find((candidate) => candidate.email === email);
      // By the loop's own clock: found before the safety sweep after the last one was due.
      expect(placement?.recordedAt).toBeLessThan((lastSweeps[index] ?? 0) + SAFETY_SWEEP_MS);
      // And by a sweep an announcement started: no safety sweep ran in between.
      const safety = harness.sweeps.filter(
        (sweep) => sweep.email === email && sweep.at >= (lastSweeps[index] ?? 0) + SAFETY_SWEEP_MS,
      );
      expect(safety).toEqual([]);
    }
    // NOTIFY pushed INBOX's copy with its headers (INBOX is selected on the watch): nothing read for it; Junk's was
    // named by a STATUS and opened alone, no listing first (the watch then selects Junk: imapflow's LIST of that one
    // name, EXAMINE, IDLE).
    const commands = harness.commands.slice(commandsBefore);
    const of = (account: string) =>
      commands.filter((command) => command.account === account).map((command) => command.command);
    expect(of('inbox@mail.test').filter((command) => command !== 'IDLE' && command !== '')).toEqual([]);
    expect(of('junk@mail.test').slice(0, 2)).toEqual(['EXAMINE', 'UID FETCH']);

    // junk@'s watch now selects Junk, where its copy landed: the next copy to each account comes with its
    // announcement, and neither account opens or fetches anything for it.
    const second = await harness.startQuietly('idle');
    await pollUntil(
      () => harness.commands.slice(commandsBefore),
      (since) =>
        since.some((c) => c.account === 'junk@mail.test' && c.command === 'EXAMINE') &&
        quietFor(since) &&
        clock.now() < Math.min(...lastSweepsOf()) + SAFETY_SWEEP_MS - HEADROOM_MS,
      { timeoutMs: 30_000 + SAFETY_SWEEP_MS, intervalMs: 250 },
    );
    const pushed = await sendUntilRecorded(second, 'pushed by NOTIFY');
    const read = harness.commands
      .slice(pushed.commandsBefore)
      .filter((command) => command.command === 'EXAMINE' || command.command === 'UID FETCH');
    expect(read).toEqual([]);
  }, 300_000);
});
