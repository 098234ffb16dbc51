// Owns how the table's stream wakes the scanner: the batching, ageing and retry of the stream's event source, and
// the scanner's recursive-loop setting that keeps its hand-over chain alive.
import { Duration } from 'aws-cdk-lib';
import { RecursiveLoop } from 'aws-cdk-lib/aws-lambda';
import type { DynamoEventSourceProps } from 'aws-cdk-lib/aws-lambda-event-sources';

/**
 * The stream's batches only kick the loops (kickLoops in shared/scanner/invocation.ts): one wake-up serves a whole
 * batch, so batches are large and sent at once, and a stale wake-up is dropped rather than retried for long.
 */
export const WAKE_UP_BATCHES = {
  // However many new checks a batch holds, it costs one wake-up: a few reads.
  batchSize: 100,
  // Sent as soon as there is a record: a new check should be swept within the loop's interval, not a window later.
  maxBatchingWindow: Duration.seconds(0),
  // The minute schedule starts the same loops, so a wake-up older than that (the least Lambda allows) is worth
  // nothing; it goes to the dead-letter queue instead of holding up the records behind it.
  maxRecordAge: Duration.minutes(1),
  // A failed wake-up is a DynamoDB or Lambda hiccup (a failed start gives its reservation back): worth two more tries.
  retryAttempts: 2,
  // Every record of a batch asks for the same thing; halving a failed batch would only repeat the same wake-up.
  bisectBatchOnError: false,
} as const satisfies Partial<DynamoEventSourceProps>;

/**
 * The scanner invokes itself: a loop at its deadline hands over to a fresh invocation, for as long as checks keep
 * arriving. Lambda's recursive-loop detection stops a chain after about 16 hops where it tracks one (today through
 * SQS, SNS and S3, not a direct Invoke); allowing the loop keeps the hand-over chain from being cut if that tracking
 * ever covers it. Runaways are held by the lease (one loop per shard) and the reserved concurrency instead.
 */
export const SCANNER_RECURSIVE_LOOP = RecursiveLoop.ALLOW;
