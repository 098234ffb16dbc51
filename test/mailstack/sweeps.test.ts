// How the scanner reads real Dovecot mailboxes: exactly-once results with two scanners racing and after a lost
// cursor, sweep cost independent of mailbox size, no login at all when no check is active, one loop per lease.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoCursorStore } from '../../shared/adapters/dynamo/DynamoCursorStore';
import { createLogger } from '../../shared/log';
import { runScanLoop } from '../../shared/scanner/scanLoop';
import { appendOld, sendOnce, stackAccount } from '../support/mailStack';
import { type ScanHarness, startScanHarness } from '../support/scanHarness';

const silent = createLogger('test', 'error', () => undefined);
let harness: ScanHarness;

beforeAll(async () => {
  harness = await startScanHarness([
    ...['inbox', 'junk', 'trash', 'promo', 'archive'].map((name) => ({
      ...stackAccount(`${name}@mail.test`),
      scope: 'race',
    })),
    { ...stackAccount('user007@mail.test'), scope: 'size' },
    { ...stackAccount('user008@mail.test'), scope: 'size' },
  ]);
});
afterAll(async () => harness?.close());

/** Counts the calls through `client` that took more than one attempt (the SDK retried them). */
const countRetriedCalls = (client: ScanHarness['service']['client']) => {
  const retried = { count: 0 };
  const attemptsOf = (value: unknown) =>
    (value as { $metadata?: { attempts?: number } } | undefined)?.$metadata?.attempts ?? 1;
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        const result = await next(args);
        if (attemptsOf(result.output) > 1) retried.count++;
        return result;
      } catch (error) {
        if (attemptsOf(error) > 1) retried.count++;
        throw error;
      }
    },
    { step: 'initialize', name: 'countRetriedCalls' },
  );
  return retried;
};

const until = async (done: () => Promise<boolean>, step: () => Promise<unknown>, limitMs = 30_000) => {
  const deadline = Date.now() + limitMs;
  while (!(await done()) && Date.now() < deadline) await step();
};

describe('exactly-once results', () => {
  it('two scanners sweeping the same mailboxes at once write every account of every check exactly once', async () => {
    const checks = await Promise.all(Array.from({ length: 20 }, () => harness.startQuietly('race')));
    for (const check of checks) await sendOnce(check.accounts, { subject: `race ${check.check_id}` });
    const first = harness.newScanner().scanner;
    const second = harness.newScanner().scanner;
    const retried = countRetriedCalls(harness.service.client);
    const ids = new Set(checks.map((check) => check.check_id));
    const complete = async () => {
      for (const { check_id } of checks) {
        const check = await harness.service.deps.checks.get(check_id);
        if (!check || check.received < check.results.length) return false;
      }
      return true;
    };
    await until(complete, () => Promise.all([first.sweepOnce(), second.sweepOnce()]));
    await Promise.all([first.close(), second.close()]);

    const pairsOf = (outcome: string) =>
      harness.placements
        .filter((p) => ids.has(p.checkId) && p.outcome === outcome)
        .map((p) => `${p.checkId}/${p.email}`);
    const pairs = pairsOf('recorded');
    // No pair recorded twice, by the same scanner or the other.
    expect(new Set(pairs).size).toBe(pairs.length);
    // Every pair told recorded by one of them. A write the store applied but whose answer came too late (past the
    // client's 1 s request timeout on a crowded machine) is tried again and refused on itself: its pair is told found
    // written instead, and only then (dynamoFaults.test.ts allows for the same).
    const untold = checks
      .flatMap((check) =>
        check.accounts.map((address) => `${check.check_id}/${address.replace(/\+tc_[a-z2-7]+@/, '@')}`),
      )
      .filter((pair) => !pairs.includes(pair));
    const foundWritten = new Set(pairsOf('already-recorded'));
    const outcomes = JSON.stringify({ untold, retriedCalls: retried.count });
    expect(
      untold.filter((pair) => !foundWritten.has(pair)),
      outcomes,
    ).toEqual([]);
    if (untold.length > 0) expect(retried.count, outcomes).toBeGreaterThan(0);
    expect(pairs.length + untold.length).toBe(20 * 5);
    for (const { check_id } of checks) {
      const check = await harness.service.deps.checks.get(check_id);
      expect(check?.received).toBe(5);
      expect(check?.results.filter((result) => result.category !== 'pending')).toHaveLength(5);
    }
  });

  it('a rescan after losing every cursor (a crash before the cursor write) changes nothing', async () => {
    const check = await harness.startQuietly('race');
    await sendOnce(check.accounts);
    const { scanner } = harness.newScanner();
    const done = async () => (await harness.service.deps.checks.get(check.check_id))?.received === 5;
    await until(done, () => scanner.sweepOnce());
    await scanner.close();
    expect(await done()).toBe(true);

    const cursors = new DynamoCursorStore(harness.service.client, harness.service.table);
    for (const address of check.accounts) {
      const email = address.replace(/\+tc_[a-z2-7]+@/, '@');
      for (const folder of ['INBOX', 'Junk', 'Trash', 'Promotions', 'Archive']) {
        await cursors.put(email, folder, { uidValidity: 'lost', lastUid: 0 });
      }
    }
    // A check still waiting on these accounts is what makes the scanner read them again.
    await harness.startQuietly('race');
    const before = harness.placements.length;
    const rescanner = harness.newScanner().scanner;
    await rescanner.sweepOnce();
    await rescanner.close();
    const again = harness.placements.slice(before).filter((p) => p.checkId === check.check_id);
    expect(again.map((p) => p.outcome)).toEqual(Array(5).fill('already-recorded'));
    expect((await harness.service.deps.checks.get(check.check_id))?.received).toBe(5);
  });
});

describe('sweep cost', () => {
  it('a mailbox holding 2,000 old messages is swept with the same IMAP commands as one holding a single old message; empty folders are not opened', async () => {
    const full = stackAccount('user007@mail.test');
    await appendOld(full, 2000, new Date(Date.now() - 2 * 86_400_000));
    // An empty folder is not opened at first sight (its STATUS says MESSAGES 0): the baseline holds one old message
    // in the same folder, so both open the same folders and only the history's size differs.
    await appendOld(stackAccount('user008@mail.test'), 1, new Date(Date.now() - 2 * 86_400_000));
    const check = await harness.startQuietly('size');
    // The sweep's own commands: no IDLE watch logging in beside it.
    const { scanner } = harness.newScanner({ watch: false });
    const verbs = (email: string, from: number) =>
      harness.commands
        .slice(from)
        .filter((c) => c.account === email)
        .map((c) => c.command)
        .sort();
    const phase = async (run: () => Promise<unknown>) => {
      const from = harness.commands.length;
      await run();
      return { full: verbs('user007@mail.test', from), empty: verbs('user008@mail.test', from) };
    };

    const firstSight = await phase(() => scanner.sweepOnce());
    expect(firstSight.full).toEqual(firstSight.empty);
    expect(firstSight.full.filter((verb) => verb.endsWith('FETCH'))).toHaveLength(0);
    // INBOX holds the old mail; Junk, Trash, Promotions and Archive are empty and not opened.
    expect(firstSight.full.filter((verb) => verb === 'EXAMINE')).toHaveLength(1);

    const idle = await phase(() => scanner.sweepOnce());
    expect(idle.full).toEqual(idle.empty);
    expect(idle.full).toEqual(['LIST']);

    await sendOnce(check.accounts);
    const placed = async () => (await harness.service.deps.checks.get(check.check_id))?.received === 2;
    const arrival = await phase(() => until(placed, () => scanner.sweepOnce()));
    expect(await placed()).toBe(true);
    expect(arrival.full.filter((verb) => verb.endsWith('FETCH'))).toEqual(
      arrival.empty.filter((verb) => verb.endsWith('FETCH')),
    );
    expect(arrival.full.filter((verb) => verb === 'UID FETCH')).toHaveLength(1);
    await scanner.close();
  });
});

describe('the loop', () => {
  it('exits at once with no IMAP login when no check is active', async () => {
    harness.service.clock.advance(6 * 60_000);
    try {
      const from = harness.commands.length;
      const { scanner, lease } = harness.newScanner();
      const report = await runScanLoop(
        { scanner, lease, clock: harness.service.clock, log: silent },
        {
          owner: 'idle-test',
          intervalMs: 1000,
          deadline: harness.service.clock.now() + 60_000,
          leaseTtlMs: 5000,
          idleGraceMs: 0,
        },
      );
      expect(report).toEqual({ ran: true, ticks: 1, stoppedBecause: 'idle', lastTickAt: expect.any(Number) });
      expect(harness.commands.slice(from)).toEqual([]);
    } finally {
      harness.service.clock.reset();
    }
  });

  it('runs one loop at a time: a second loop that cannot take the lease does nothing', async () => {
    await harness.startQuietly('size');
    const one = harness.newScanner();
    const two = harness.newScanner();
    const options = {
      intervalMs: 200,
      deadline: harness.service.clock.now() + 2000,
      leaseTtlMs: 5000,
      idleGraceMs: 0,
    };
    const [a, b] = await Promise.all([
      runScanLoop({ ...one, clock: harness.service.clock, log: silent }, { ...options, owner: 'one' }),
      runScanLoop({ ...two, clock: harness.service.clock, log: silent }, { ...options, owner: 'two' }),
    ]);
    expect([a.ran, b.ran].sort()).toEqual([false, true]);
    expect([a.stoppedBecause, b.stoppedBecause]).toContain('not-acquired');
  });
});
