// A backlog that built up while nothing read a mailbox (20,000 messages after a quiet period) drains in bounded
// batches on the real Dovecot without a failed sweep, and a new check's copy delivered during the drain is recorded
// within 5 s of its delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../scripts/lib/poll';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoCursorStore } from '../../shared/adapters/dynamo/DynamoCursorStore';
import { emptyAccounts, lastInboxUid } from '../support/accountMail';
import { deliverLmtp, importBacklog, stackAccount } from '../support/mailStack';
import { type ScanHarness, startScanHarness } from '../support/scanHarness';

const EMAIL = 'user010@mail.test';
const BACKLOG = 20_000;
/** The bound the service promises for a copy delivered while a backlog drains. */
const RECORDED_WITHIN_MS = 5000;

let harness: ScanHarness;

beforeAll(async () => {
  // The stack's accounts are shared by every file of the mail-stack suite: start from an empty mailbox.
  await emptyAccounts([EMAIL]);
  harness = await startScanHarness([{ ...stackAccount(EMAIL), scope: 'backlog' }]);
});
afterAll(async () => {
  await harness?.close();
  await emptyAccounts([EMAIL]);
});

describe('a backlog after a quiet period', () => {
  it('drains 20,000 messages without a failed sweep and records a copy delivered meanwhile within 5 s', async () => {
    const cursors = new DynamoCursorStore(harness.service.client, harness.service.table);
    const inbox = async () => (await cursors.get(EMAIL, 'INBOX'))?.lastUid ?? -1;
    // A loop read the account once, so its cursors exist; then nothing read it while the backlog arrived.
    await harness.startQuietly('backlog');
    const { scanner } = harness.newScanner({ watch: false });
    await scanner.sweepOnce();
    await scanner.close();
    // UIDs are never reused: the backlog's start past the mail other files left and deleted.
    const base = Math.max(0, await inbox());
    importBacklog(stackAccount(EMAIL), BACKLOG);

    // The check above still waits for the account, so the loop npm start runs sweeps it at its first tick.
    const startedAt = Date.now();
    harness.startRunner();
    const moved = await pollUntil(inbox, (uid) => uid > base, { timeoutMs: 30_000, intervalMs: 20 });
    // Mid-drain: the cursor moved by a batch or a few, far from the end.
    expect(moved).toBeGreaterThan(base);
    expect(moved).toBeLessThan(base + BACKLOG / 2);

    const check = await harness.startQuietly('backlog');
    const [address = ''] = check.accounts;
    const delivered = await deliverLmtp([address], { subject: 'delivered during the drain' });
    const deliveredAt = delivered.get(address) ?? Number.NaN;
    const recordedOf = () =>
      harness.placements.find((p) => p.checkId === check.check_id && p.outcome === 'recorded');
    const recorded = await pollUntil(recordedOf, (found) => found !== undefined, {
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    const cursorWhenRecorded = await inbox();
    const last = await lastInboxUid(EMAIL);
    expect(last).toBeGreaterThanOrEqual(base + BACKLOG + 1);
    const drained = await pollUntil(inbox, (uid) => uid >= last, {
      timeoutMs: 150_000,
      intervalMs: 100,
    });
    const drainMs = Date.now() - startedAt;
    const newCopyMs = (recorded?.recordedAt ?? Number.POSITIVE_INFINITY) - deliveredAt;
    const sweeps = harness.sweeps.filter((sweep) => sweep.email === EMAIL);
    // The figures for the report, as idle.test.ts prints its own.
    console.info(
      `backlog ${JSON.stringify({ messages: BACKLOG, drainMs, newCopyMs, cursorWhenRecorded, sweeps: sweeps.length })}`,
    );

    expect(recorded?.category).toBe('primary');
    expect(newCopyMs).toBeLessThan(RECORDED_WITHIN_MS);
    // Recorded during the drain, not after it: the newest messages are read before the backlog below them.
    expect(cursorWhenRecorded).toBeLessThan(last - 1);
    expect(drained).toBe(last);
    // Many short sweeps, none failed, and the account was never counted as failing.
    expect(sweeps.length).toBeGreaterThan(2);
    expect(sweeps.filter((sweep) => !sweep.ok)).toEqual([]);
    const registry = new DynamoAccountRegistry(harness.service.client, harness.service.table);
    const health = (await registry.list()).find((account) => account.email === EMAIL)?.health;
    expect(health?.failures ?? 0).toBe(0);
    expect(health?.unhealthySince).toBeUndefined();
    // Each copy of the check was recorded once.
    expect(
      harness.placements.filter((p) => p.checkId === check.check_id && p.outcome === 'recorded'),
    ).toHaveLength(1);
  }, 240_000);
});
