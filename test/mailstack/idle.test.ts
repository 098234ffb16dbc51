// Push detection against the real Dovecot: while a check waits and nothing arrives an account costs at most 6 IMAP
// commands a minute (counted by a proxy in front of the server, logins included), and a delivered copy is recorded
// on the server's IDLE announcement, before the safety sweep that would otherwise have found it, by opening the folder
// the announcement named: no listing of every folder first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../scripts/lib/poll';
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
    // Steady state, however busy the machine: both watches live, each account swept once since its watch went
    // live (the sweep for mail that landed before the watch's EXAMINE), then ticks with no sweep.
    // And far enough from the next safety sweep that only an announcement can explain a copy found before it (on a
    // busy machine the steady state may come late, just before a safety sweep: then wait for that one to pass).
    await pollUntil(
      () => ({ live: liveWatches(), lastSweeps: lastSweepsOf() }),
      ({ live, lastSweeps }) =>
        live.length === 2 &&
        lastSweeps.every((at) => at >= Math.max(...live.map((watch) => watch.at))) &&
        quietTicksSince(Math.max(...lastSweeps)) >= 3 &&
        clock.now() < Math.min(...lastSweeps) + SAFETY_SWEEP_MS - HEADROOM_MS,
      { timeoutMs: 30_000 + SAFETY_SWEEP_MS },
    );
    // Dovecot offers NOTIFY: one watch per account covers every folder.
    expect(liveWatches().map((watch) => watch.path)).toEqual(['*', '*']);
    const sentAt = clock.now();
    const lastSweeps = lastSweepsOf();
    const lastSweep = Math.max(...lastSweeps);
    const quietTicks = harness.ticks.filter((at) => at > lastSweep && at <= sentAt).length;
    // Watched accounts are not polled: at a 250 ms interval, 2 s hold several ticks without a sweep.
    expect(quietTicks).toBeGreaterThanOrEqual(3);

    // GTUBE: SpamAssassin scores it spam, and junk@'s sieve files it in Junk.
    const commandsBefore = harness.commands.length;
    await sendOnce(check.accounts, { subject: 'announced by IDLE', text: GTUBE });
    const recorded = () =>
      harness.placements.filter(
        (placement) => placement.checkId === check.check_id && placement.outcome === 'recorded',
      );
    await pollUntil(recorded, (found) => found.length >= 2, { timeoutMs: 60_000, intervalMs: 50 });
    console.info(
      `detection ${JSON.stringify(recorded().map((p) => ({ email: p.email, ms: p.recordedAt - sentAt })))}`,
    );
    expect(
      recorded()
        .map((placement) => placement.email)
        .sort(),
    ).toEqual(ACCOUNTS);
    expect(Object.fromEntries(recorded().map((placement) => [placement.email, placement.category]))).toEqual({
      'inbox@mail.test': 'primary',
      'junk@mail.test': 'spam',
    });
    for (const [index, email] of ACCOUNTS.entries()) {
      const placement = recorded().find((candidate) => candidate.email === email);
      // By the loop's own clock: found before the safety sweep after the last one was due.
      expect(placement?.recordedAt).toBeLessThan((lastSweeps[index] ?? 0) + SAFETY_SWEEP_MS);
      // And by a sweep an announcement started: no safety sweep ran in between.
      const safety = harness.sweeps.filter(
        (sweep) => sweep.email === email && sweep.at >= (lastSweeps[index] ?? 0) + SAFETY_SWEEP_MS,
      );
      expect(safety).toEqual([]);
    }
    // NOTIFY named the folder of each copy (INBOX, selected on the watch; Junk, by STATUS): each was opened alone.
    const commands = harness.commands.slice(commandsBefore).map((command) => command.command);
    expect(commands).not.toContain('LIST');
    expect(commands.filter((command) => command === 'EXAMINE').length).toBeGreaterThanOrEqual(2);
  }, 150_000);
});
