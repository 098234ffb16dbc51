// Owns the webhook sender's reading of the table stream: each record parsed by Powertools' parser (its DynamoDB stream
// record schema, the keys unmarshalled) inside Powertools' batch processor, so a record whose turn fails (or that does
// not parse) is reported in batchItemFailures by its sequence number and the stream retries from it, not the batch.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { parser } from '@aws-lambda-powertools/batch/parser';
import { DynamoDBStreamRecord } from '@aws-lambda-powertools/parser/schemas/dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { z } from 'zod';
import { isCheckId } from '../../domain/checkId';
import type { Logger } from '../../log';
import { KEY_PREFIXES } from '../dynamo/keys';

type StreamRecord = z.infer<typeof DynamoDBStreamRecord>;

/** The check a delivery item's partition key names, if it is one. */
const checkIdOfKey = (pk: unknown): string | undefined => {
  if (typeof pk !== 'string' || !pk.startsWith(KEY_PREFIXES.webhook)) return undefined;
  const checkId = pk.slice(KEY_PREFIXES.webhook.length);
  return isCheckId(checkId) ? checkId : undefined;
};

/**
 * A handler of the stream's batches that takes `turn` for each delivery inserted, one record at a time. The event
 * source's filter passes only delivery inserts; anything else that parses is skipped, logged, and not retried.
 */
export const deliveryStream = (turn: (checkId: string) => Promise<unknown>, log: Logger) => {
  const processor = new BatchProcessor(EventType.DynamoDBStreams, {
    parser,
    schema: DynamoDBStreamRecord,
    logger: log,
  });
  const handle = async (record: StreamRecord): Promise<void> => {
    const checkId = record.eventName === 'INSERT' ? checkIdOfKey(record.dynamodb.Keys.pk) : undefined;
    if (checkId) {
      await turn(checkId);
      return;
    }
    log.warn('skipped a stream record that is no delivery insert', { event_name: record.eventName });
  };
  // One turn at a time, as the retry queue's: a batch's posts never pile up on the sender's timeout.
  return (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
    processPartialResponse(event, handle, processor, { processInParallel: false });
};
