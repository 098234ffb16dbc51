// The stream's wake-up on AWS's own DynamoDB Local: it only starts the loops nobody runs, never waits for one, keeps
// up with 600 new checks a minute while a loop holds the lease, and starts one loop however many wake-ups race.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { driveWakeUps } from '../../scripts/lib/wakeUpDrive';
import { createDocumentClient, type DynamoConnection } from '../../shared/adapters/dynamo/client';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoLease } from '../../shared/adapters/dynamo/DynamoLease';
import { DynamoOpenChecks } from '../../shared/adapters/dynamo/DynamoOpenChecks';
import { DynamoShardLayout } from '../../shared/adapters/dynamo/DynamoShardLayout';
import { scannerLeaseOf } from '../../shared/composition/scanner';
import { composeWakeUp } from '../../shared/composition/wakeUp';
import { newCheck } from '../../shared/domain/check';
import { newCheckId } from '../../shared/domain/checkId';
import { systemClock } from '../../shared/domain/clock';
import { ensureTable } from '../../shared/local/bootstrap';
import { missedWhileClosing, WAKE_UP_RESERVATION_MS } from '../../shared/scanner/invocation';
import { type Shard, SINGLE_SHARD } from '../../shared/scanner/shards';
import { DYNAMO_LOCAL_TIMEOUTS } from '../support/dynamoLocal';

const connection = (): DynamoConnection => ({
  region: 'local',
  endpoint: inject('dynamoLocalEndpoint'),
  timeouts: DYNAMO_LOCAL_TIMEOUTS,
});
const client = createDocumentClient(connection());
const freshTable = async () => {
  const table = `test-${randomUUID()}`;
  await ensureTable(client, table);
  return table;
};
afterAll(() => client.destroy());

/** A wake-up whose starts are recorded, and succeed unless told otherwise. */
const recordingWakeUp = (tableName: string, succeed = true) => {
  const started: { shard: Shard; reservedBy: string }[] = [];
  const wakeUp = composeWakeUp({
    client,
    tableName,
    clock: systemClock,
    start: async (shard, reservedBy) => {
      started.push({ shard, reservedBy });
      return succeed;
    },
  });
  return { wakeUp, started };
};

describe('the wake-up, with a loop holding the lease', () => {
  const RECORDS = 600;
  let drive: Awaited<ReturnType<typeof driveWakeUps>>;
  beforeAll(async () => {
    drive = await driveWakeUps({ connection: connection(), tableName: await freshTable(), records: RECORDS });
  }, 120_000);

  it('handles each of 600 new checks (a minute at 600 starts a minute) and starts no loop', () => {
    expect(drive.reports).toHaveLength(RECORDS);
    expect(drive.reports.every((r) => r.running === 1 && r.started === 0 && r.failed === 0)).toBe(true);
    expect(drive.starts).toBe(0);
  });

  it('returns without waiting for the loop: the loop still held its lease after the last record', () => {
    expect(drive.loopStillRunning).toBe(true);
    expect(drive.loop).toMatchObject({ ran: true, stoppedBecause: 'stopped' });
  });

  it('reads two items a record and writes none: the shard layout and the lease', () => {
    expect(drive.commands).toEqual({ GetItemCommand: RECORDS * 2 });
  });

  it('keeps up: the 600 records were handled in less than the minute they arrive over', () => {
    // The ratio of handling time to arrival time; above 1 a backlog would grow. Its figure is the bench's.
    expect(drive.elapsedMs / 60_000).toBeLessThan(1);
  });
});

describe('the wake-up, with no loop running', () => {
  it('starts one loop per shard however many wake-ups race, each reserving the lease for it', async () => {
    const table = await freshTable();
    await new DynamoShardLayout(client, table).publish(2, Date.now());
    const { wakeUp, started } = recordingWakeUp(table);
    const reports = await Promise.all(Array.from({ length: 20 }, (_, i) => wakeUp(`race-${i}`)));
    expect(reports.reduce((sum, r) => sum + r.started, 0)).toBe(2);
    expect(reports.reduce((sum, r) => sum + r.running, 0)).toBe(20 * 2 - 2);
    expect(started.map((s) => s.shard).sort((a, b) => a.index - b.index)).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ]);
    for (const { shard, reservedBy } of started) {
      const lease = new DynamoLease(client, table, scannerLeaseOf(shard));
      expect(await lease.heldAt(Date.now() + WAKE_UP_RESERVATION_MS - 1000)).toBe(true);
      // The started loop takes the reservation over at once; a second delivery of the same event cannot.
      expect(await lease.acquire('loop-a', Date.now(), 60_000, reservedBy)).toBe(true);
      expect(await lease.acquire('loop-b', Date.now(), 60_000, reservedBy)).toBe(false);
    }
  });

  it('gives the reservation back when the start fails, so the next wake-up tries again', async () => {
    const table = await freshTable();
    const failing = recordingWakeUp(table, false);
    expect(await failing.wakeUp('fails')).toEqual({ started: 0, running: 0, failed: 1 });
    const lease = new DynamoLease(client, table, scannerLeaseOf({ index: 0, count: 1 }));
    expect(await lease.heldAt(Date.now())).toBe(false);
    const working = recordingWakeUp(table);
    expect(await working.wakeUp('works')).toEqual({ started: 1, running: 0, failed: 0 });
  });

  it('starts a loop again once the lease it reserved has lapsed unused', async () => {
    const table = await freshTable();
    const { wakeUp, started } = recordingWakeUp(table);
    await wakeUp('first');
    const lease = new DynamoLease(client, table, scannerLeaseOf({ index: 0, count: 1 }));
    // As if the reservation had been written a reservation's length ago and its loop never came.
    await lease.release(started[0]?.reservedBy ?? '');
    await lease.acquire('lapsed', Date.now() - WAKE_UP_RESERVATION_MS - 1, WAKE_UP_RESERVATION_MS);
    expect(await wakeUp('second')).toEqual({ started: 1, running: 0, failed: 0 });
    expect(started).toHaveLength(2);
  });
});

describe('the last look of a loop that stopped idle', () => {
  it('finds, in the open-checks index, a check started after its last listing, not one started before', async () => {
    const table = await freshTable();
    const layout = new DynamoShardLayout(client, table);
    const store = new DynamoCheckStore(client, table, layout);
    const lastListing = Date.now();
    await store.create(newCheck(newCheckId(), 'default', ['a@mail.test'], lastListing - 1));
    const checks = new DynamoOpenChecks(client, table, layout, SINGLE_SHARD);
    expect(await missedWhileClosing(checks, SINGLE_SHARD, lastListing, Date.now())).toBe(false);
    await store.create(newCheck(newCheckId(), 'default', ['b@mail.test'], lastListing + 1));
    await vi.waitFor(
      async () => expect(await missedWhileClosing(checks, SINGLE_SHARD, lastListing, Date.now())).toBe(true),
      { timeout: 10_000, interval: 50 },
    );
  });
});
