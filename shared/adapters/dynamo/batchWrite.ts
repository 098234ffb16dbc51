// Owns BatchWriteItem: requests in batches of 25, and what DynamoDB leaves unprocessed sent again, a few times.
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { untilProcessed } from './unprocessed';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/** BatchWriteItem takes at most 25 items. */
export const BATCH_WRITE_ITEMS = 25;

/**
 * Every request written, or a StoreUnavailableError. The items are independent: each one is written whole or not at
 * all, and a failure part-way leaves the earlier ones written (callers write only what may be written twice).
 */
export const writeAll = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  writes: readonly WriteRequest[],
): Promise<void> => {
  for (let start = 0; start < writes.length; start += BATCH_WRITE_ITEMS) {
    await untilProcessed<BatchWriteCommandInput['RequestItems']>(
      'BatchWriteItem',
      { [tableName]: writes.slice(start, start + BATCH_WRITE_ITEMS) },
      async (requests) => {
        const { UnprocessedItems } = await client.send(new BatchWriteCommand({ RequestItems: requests }));
        return UnprocessedItems && Object.keys(UnprocessedItems).length > 0 ? UnprocessedItems : undefined;
      },
    );
  }
};

export const putRequest = (Item: Record<string, unknown>): WriteRequest => ({ PutRequest: { Item } });
export const deleteRequest = (Key: Record<string, unknown>): WriteRequest => ({ DeleteRequest: { Key } });
