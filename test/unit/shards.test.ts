import { describe, expect, it } from 'vitest';
import {
  handOverEvent,
  isStreamWakeUp,
  kickEvent,
  missedWhileClosing,
  reservationOf,
  shardEvent,
  shardOfEvent,
  wakeOf,
} from '../../shared/scanner/invocation';
import type { PendingAccounts } from '../../shared/scanner/scannerPorts';
import { inShard, isShard, shardIndexOf } from '../../shared/scanner/shards';

const emails = Array.from({ length: 400 }, (_, index) => `user${String(index).padStart(3, '0')}@mail.test`);

describe('scanner shards', () => {
  it('puts every account in exactly one shard, whatever the shard count', () => {
    for (const count of [1, 2, 3, 4, 7]) {
      for (const email of emails) {
        const owners = Array.from({ length: count }, (_, index) => index).filter((index) =>
          inShard(email, { index, count }),
        );
        expect(owners).toHaveLength(1);
      }
    }
  });

  it('is stable and ignores the case of the address', () => {
    expect(shardIndexOf('Inbox@Mail.Test', 4)).toBe(shardIndexOf('inbox@mail.test', 4));
    expect(shardIndexOf('inbox@mail.test', 4)).toBe(shardIndexOf('inbox@mail.test', 4));
  });

  it('spreads accounts roughly evenly: no shard of 4 gets more than a third of 400 accounts', () => {
    const sizes = [0, 0, 0, 0];
    for (const email of emails) sizes[shardIndexOf(email, 4)] = (sizes[shardIndexOf(email, 4)] ?? 0) + 1;
    expect(Math.max(...sizes)).toBeLessThan(400 / 3);
    expect(Math.min(...sizes)).toBeGreaterThan(400 / 6);
  });

  it('accepts only a well-formed shard', () => {
    expect(isShard({ index: 1, count: 2 })).toBe(true);
    for (const bad of [
      { index: 2, count: 2 },
      { index: -1, count: 2 },
      { index: 0, count: 0 },
      { index: 0.5, count: 2 },
      null,
      'x',
    ])
      expect(isShard(bad)).toBe(false);
  });
});

describe('scanner events', () => {
  it('reads the wake reason and the shard of every kind of event', () => {
    expect(wakeOf({})).toBe('schedule');
    expect(wakeOf({ Records: [] })).toBe('new-check');
    expect(wakeOf(handOverEvent({ index: 1, count: 3 }, { hop: 1, startedAt: 1 }))).toBe('hand-over');
    expect(shardOfEvent(handOverEvent({ index: 1, count: 3 }, { hop: 1, startedAt: 1 }))).toEqual({
      index: 1,
      count: 3,
    });
    expect(wakeOf(shardEvent({ index: 2, count: 3 }, 'new-check'))).toBe('new-check');
    expect(shardOfEvent(shardEvent({ index: 2, count: 3 }, 'schedule'))).toEqual({ index: 2, count: 3 });
    // The schedule and the stream carry no shard: that invocation hands them out.
    expect(shardOfEvent({ Records: [] })).toBeUndefined();
    expect(shardOfEvent({ shard: { index: 5, count: 3 } })).toBeUndefined();
  });

  it("tells the stream's batch (a wake-up only) from the loop a wake-up starts, with its reservation", () => {
    expect(isStreamWakeUp({ Records: [{}] })).toBe(true);
    const kicked = kickEvent({ index: 1, count: 2 }, 'wake-abc-1');
    expect(isStreamWakeUp(kicked)).toBe(false);
    expect(wakeOf(kicked)).toBe('new-check');
    expect(shardOfEvent(kicked)).toEqual({ index: 1, count: 2 });
    expect(reservationOf(kicked)).toBe('wake-abc-1');
    // Only what a wake-up writes is a reservation: another owner's name, or anything long or odd, is ignored.
    for (const reservedBy of ['running-loop', `wake-${'x'.repeat(101)}`, 'wake-a b', 7, undefined]) {
      expect(reservationOf({ ...kicked, reservedBy })).toBeUndefined();
    }
    expect(reservationOf(shardEvent({ index: 0, count: 1 }, 'schedule'))).toBeUndefined();
  });
});

describe('the last look of a loop that stopped idle', () => {
  const shard = { index: 0, count: 1 };
  const listing = (checks: PendingAccounts[]) => {
    const asked: (number | undefined)[] = [];
    return {
      asked,
      listActive: async (_now: number, since?: number) => {
        asked.push(since);
        return checks;
      },
    };
  };

  it('finds a check started after its last listing that still waits for an account of its shard', async () => {
    const checks = listing([{ checkId: 'c1', createdAt: 1_000, pending: ['a@mail.test'] }]);
    expect(await missedWhileClosing(checks, shard, 1_000, 5_000)).toBe(true);
    expect(checks.asked).toEqual([1_000]);
  });

  it('ignores checks the last listing could see, checks with nothing pending, and other shards', async () => {
    const before = listing([{ checkId: 'c1', createdAt: 999, pending: ['a@mail.test'] }]);
    expect(await missedWhileClosing(before, shard, 1_000, 5_000)).toBe(false);
    const done = listing([{ checkId: 'c2', createdAt: 2_000, pending: [] }]);
    expect(await missedWhileClosing(done, shard, 1_000, 5_000)).toBe(false);
    const undated = listing([{ checkId: 'c3', pending: ['a@mail.test'] }]);
    expect(await missedWhileClosing(undated, shard, 1_000, 5_000)).toBe(false);
    const email = 'a@mail.test';
    const elsewhere = { index: (shardIndexOf(email, 2) + 1) % 2, count: 2 };
    const other = listing([{ checkId: 'c4', createdAt: 2_000, pending: [email] }]);
    expect(await missedWhileClosing(other, elsewhere, 1_000, 5_000)).toBe(false);
  });
});
