// Owns the scanner Lambda's events: telling apart what woke it (the minute schedule, a new check on the table's
// stream, a hand-over from itself) and which shard of the accounts it sweeps.
import { isShard, type Shard } from './shards';

export type ScanWake = 'schedule' | 'new-check' | 'hand-over';

const SOURCE = 'inbox-placement.scanner';

/** The payload a loop that reaches its deadline sends to a fresh invocation of itself. */
const HAND_OVER_EVENT = { source: SOURCE, handOver: true } as const;

/** What the first invocation sends each further shard: the shard, and what woke the first one. */
export const shardEvent = (shard: Shard, wake: ScanWake) => ({ source: SOURCE, shard, wake });

/** A hand-over keeps its shard, so the fresh invocation sweeps the same accounts. */
export const handOverEvent = (shard: Shard) => ({ ...HAND_OVER_EVENT, shard });

export const wakeOf = (event: unknown): ScanWake => {
  if (typeof event !== 'object' || event === null) return 'schedule';
  if ('handOver' in event && event.handOver === true) return 'hand-over';
  if ('Records' in event && Array.isArray(event.Records)) return 'new-check';
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
