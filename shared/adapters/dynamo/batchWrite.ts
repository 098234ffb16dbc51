// Owns BatchWriteItem: requests in batches of 25, and what DynamoDB leaves unprocessed sent again, a few times.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { StoreUnavailableError } from '../../domain/errors';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** BatchWriteItem takes at most 25 items. */
const BATCH_ITEMS = 25;
/** Items DynamoDB left unprocessed (throttled) are sent again this many times, after 50, 100, 200 ms. */
const UNPROCESSED_RETRIES = 3;

/**
 * Every request written, or a StoreUnavailableError. The items are independent: each one is written whole or not at
 * all, and a failure part-way leaves the earlier ones written (callers write only what may be written twice).
 */
export const writeAll = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  writes: readonly WriteRequest[],
): Promise<void> => {
  for (let start = 0; start < writes.length; start += BATCH_ITEMS) {
    let requests: BatchWriteCommandInput['RequestItems'] = {
      [tableName]: writes.slice(start, start + BATCH_ITEMS),
    };
    for (let attempt = 0; requests && Object.keys(requests).length > 0; attempt++) {
      if (attempt > UNPROCESSED_RETRIES)
        throw new StoreUnavailableError('BatchWriteItem left items unprocessed');
      if (attempt > 0) await sleep(25 * 2 ** attempt);
      const written: BatchWriteCommandOutput = await client.send(
        new BatchWriteCommand({ RequestItems: requests }),
      );
      requests = written.UnprocessedItems;
    }
  }
};

export const putRequest = (Item: Record<string, unknown>): WriteRequest => ({ PutRequest: { Item } });
export const deleteRequest = (Key: Record<string, unknown>): WriteRequest => ({ DeleteRequest: { Key } });
