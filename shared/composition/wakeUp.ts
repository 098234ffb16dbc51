// Owns assembling the stream's wake-up (kickLoops) over the table's leases and shard layout, the same way for the
// scanner Lambda, the bench and the tests.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoLease } from '../adapters/dynamo/DynamoLease';
import { DynamoShardLayout } from '../adapters/dynamo/DynamoShardLayout';
import type { Clock } from '../domain/clock';
import { kickLoops, type WakeUpParts, type WakeUpReport } from '../scanner/invocation';
import { scannerLeaseOf } from './scanner';

export interface WakeUpWiring {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
  /** Starts a loop asynchronously (ScannerInvoker.startLoop on Lambda). */
  start: WakeUpParts['start'];
}

/** One wake-up per stream batch, however many new checks it holds: `id` makes its reservations its own. */
export const composeWakeUp = (wiring: WakeUpWiring): ((id: string) => Promise<WakeUpReport>) => {
  const layout = new DynamoShardLayout(wiring.client, wiring.tableName);
  const parts: WakeUpParts = {
    clock: wiring.clock,
    shardCount: async () => (await layout.read())?.count ?? 1,
    leaseOf: (shard) => new DynamoLease(wiring.client, wiring.tableName, scannerLeaseOf(shard)),
    start: wiring.start,
  };
  return (id) => kickLoops(parts, id);
};
