// Owns the scanner Lambda's events: telling apart what woke it (the minute schedule, a new check on the table's
// stream, a hand-over from itself) and which shard of the accounts it sweeps; and the stream's wake-up itself.
import type { Clock } from '../domain/clock';
import type { HandOverChain } from './handOverChain';

export { chainOf, chainRefusal } from './handOverChain';

import type { ActiveChecks, ObservableLease } from './scannerPorts';
import { inShard, isShard, type Shard } from './shards';

export type ScanWake = 'schedule' | 'new-check' | 'hand-over';

const SOURCE = 'inbox-placement.scanner';

/** The payload a loop that reaches its deadline sends to a fresh invocation of itself. */
const HAND_OVER_EVENT = { source: SOURCE, handOver: true } as const;

/** What the first invocation sends each further shard: the shard, and what woke the first one. */
export const shardEvent = (shard: Shard, wake: ScanWake) => ({ source: SOURCE, shard, wake });

/** A hand-over keeps its shard, so the fresh invocation sweeps the same accounts, and carries its chain's bound. */
export const handOverEvent = (shard: Shard, chain: HandOverChain) => ({
  ...HAND_OVER_EVENT,
  shard,
  hop: chain.hop,
  chainStart: chain.startedAt,
});

/** What a wake-up sends the loop it starts: a new check's shard, and the owner it reserved the lease under. */
export const kickEvent = (shard: Shard, reservedBy: string) => ({
  ...shardEvent(shard, 'new-check'),
  reservedBy,
});

/** A batch from the table's stream: only kicks the loops (kickLoops), never runs one. */
export const isStreamWakeUp = (event: unknown): boolean =>
  typeof event === 'object' && event !== null && 'Records' in event && Array.isArray(event.Records);

export const wakeOf = (event: unknown): ScanWake => {
  if (typeof event !== 'object' || event === null) return 'schedule';
  if ('handOver' in event && event.handOver === true) return 'hand-over';
  if (isStreamWakeUp(event)) return 'new-check';
  if ('source' in event && event.source === SOURCE && 'wake' in event) {
    if (event.wake === 'new-check' || event.wake === 'hand-over') return event.wake;
  }
  return 'schedule';
};

/** The shard an event assigns; undefined for the schedule and the stream, whose invocation hands out shards. */
export const shardOfEvent = (event: unknown): Shard | undefined => {
  if (typeof event !== 'object' || event === null || !('shard' in event)) return undefined;
  return isShard(event.shard) ? event.shard : undefined;
};

/** A reservation's owner: what kickLoops writes, so anything longer or stranger is not one (and is ignored). */
const RESERVATION = /^wake-[\w-]{1,100}$/;

/** The owner a wake-up reserved this invocation's lease under, if the event carries one. */
export const reservationOf = (event: unknown): string | undefined => {
  if (typeof event !== 'object' || event === null || !('reservedBy' in event)) return undefined;
  const { reservedBy } = event;
  return typeof reservedBy === 'string' && RESERVATION.test(reservedBy) ? reservedBy : undefined;
};

/**
 * How long a wake-up's reservation keeps a shard's lease for the loop it starts: an asynchronous invocation queued
 * and cold-started, with room to spare. Wake-ups in between see the lease held and start nothing; if the loop never
 * comes, the lease lapses and the next wake-up (or the minute schedule) starts one.
 */
export const WAKE_UP_RESERVATION_MS = 15_000;

export interface WakeUpParts {
  clock: Clock;
  /** How many loops the published shard layout has (1 before any is published). */
  shardCount(): Promise<number>;
  leaseOf(shard: Shard): ObservableLease;
  /** Starts a loop for `shard` asynchronously, taking over the lease `reservedBy` holds; false when it could not. */
  start(shard: Shard, reservedBy: string): Promise<boolean>;
}

export interface WakeUpReport {
  /** Loops started by this wake-up. */
  started: number;
  /** Shards whose lease some loop (or another wake-up's reservation) already held: nothing to do. */
  running: number;
  /** Loops this wake-up could not start (the invoke failed); their reservations are given back. */
  failed: number;
}

/**
 * The stream's wake-up: for each shard whose lease nobody holds, reserve it and start a loop asynchronously; where a
 * loop holds it, do nothing, since that loop lists the checks again at its next tick. It never waits for a loop,
 * so it answers in a few reads however many checks start, and never takes a second reserved slot for long.
 */
export const kickLoops = async (parts: WakeUpParts, id: string): Promise<WakeUpReport> => {
  const published = await parts.shardCount();
  const count = isShard({ index: 0, count: published }) ? published : 1;
  const outcomes = await Promise.all(
    Array.from({ length: count }, async (_, index): Promise<keyof WakeUpReport> => {
      const shard = { index, count };
      const lease = parts.leaseOf(shard);
      const now = parts.clock.now();
      if (await lease.heldAt(now)) return 'running';
      // The read may be stale; the conditional write decides, so two wake-ups never start two loops of a shard.
      const owner = `wake-${id}-${index}`;
      if (!(await lease.acquire(owner, now, WAKE_UP_RESERVATION_MS))) return 'running';
      if (await parts.start(shard, owner)) return 'started';
      await lease.release(owner);
      return 'failed';
    }),
  );
  const report: WakeUpReport = { started: 0, running: 0, failed: 0 };
  for (const outcome of outcomes) report[outcome]++;
  return report;
};

/**
 * Whether a check started after this loop's last listing (`since`) waits for an account of its shard: its wake-up
 * may have landed while the loop was closing, seen the lease still held and started nothing. Only checks started
 * after the listing count, so a check the loop has already seen (and perhaps finished) never starts another loop.
 */
export const missedWhileClosing = async (
  checks: Pick<ActiveChecks, 'listActive'>,
  shard: Shard,
  since: number,
  now: number,
): Promise<boolean> =>
  (await checks.listActive(now, since)).some(
    (check) =>
      check.createdAt !== undefined &&
      check.createdAt >= since &&
      check.pending.some((email) => inShard(email, shard)),
  );
