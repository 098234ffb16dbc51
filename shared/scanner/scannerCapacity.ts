// Owns how much of the scanner's reserved concurrency a shard layout takes, so synth, `npm run deploy`, `accounts add`
// and the simulation refuse the same layouts with the same numbers.
import { shardCountFor } from './shards';

/**
 * Invocations one shard may hold at once: its loop, its successor while the loop hands over in its deadline margin,
 * and the minute schedule's kick (which finds the lease held and returns). Worst case all three coincide.
 */
export const INVOCATIONS_PER_SHARD = 3;

/** The table stream's wake-ups: one invocation per stream shard at a time, a small table having one or two. */
export const WAKE_UP_INVOCATIONS = 2;

/** The service stack's outputs saying what its scanner holds, which `accounts add` reads before registering. */
export const CAPACITY_OUTPUTS = {
  reservation: 'ScannerReservedConcurrency',
  shardSize: 'ScanShardSize',
} as const;

/** The reservation above the shards' own loops: the hand-overs, the minute's kicks and the wake-ups. */
export const headroomFor = (shards: number): number =>
  (INVOCATIONS_PER_SHARD - 1) * shards + WAKE_UP_INVOCATIONS;

/** The reserved concurrency a layout of `shards` needs so that no shard's invocation is throttled. */
const reservationFor = (shards: number): number => shards + headroomFor(shards);

export interface ScannerLayout {
  mailboxes: number;
  shards: number;
  /** The most accounts one shard may hold (SCAN_SHARD_SIZE). */
  shardSize: number;
  needed: number;
}

export const layoutFor = (mailboxes: number, shardSize: number): ScannerLayout => {
  const shards = shardCountFor(mailboxes, shardSize);
  return { mailboxes, shards, shardSize, needed: reservationFor(shards) };
};

/** Why `reservation` cannot hold `mailboxes`, with the numbers; undefined when it can. */
export const reservationProblem = (
  mailboxes: number,
  shardSize: number,
  reservation: number,
): string | undefined => {
  const layout = layoutFor(mailboxes, shardSize);
  if (layout.needed <= reservation) return undefined;
  const headroom = headroomFor(layout.shards);
  return (
    `${mailboxes} mailboxes take ${layout.shards} shard(s) of at most ${shardSize} accounts, above the ` +
    `${Math.max(0, reservation - headroom)} the scanner's reservation of ${reservation} holds after ${headroom} ` +
    `of headroom (each shard's hand-over and minute kick, ${WAKE_UP_INVOCATIONS} wake-ups): reserve at least ` +
    `${layout.needed}`
  );
};
