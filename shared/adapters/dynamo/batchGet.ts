// Owns BatchGetItem: keys in batches of 100, and what DynamoDB leaves unprocessed asked again, a few times.
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { Item } from './keys';
import { untilProcessed } from './unprocessed';

/** BatchGetItem takes at most 100 keys. */
export const BATCH_GET_KEYS = 100;

/**
 * The items found under `keys` (strongly consistent), in no particular order; a missing item is simply absent.
 * Keys still unprocessed after the retries are a StoreUnavailableError. `keys` holds no duplicates.
 */
export const getAll = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Item[],
): Promise<Item[]> => {
  const found: Item[] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
    await untilProcessed<BatchGetCommandInput['RequestItems']>(
      'BatchGetItem',
      { [tableName]: { Keys: keys.slice(start, start + BATCH_GET_KEYS), ConsistentRead: true } },
      async (requests) => {
        const { Responses, UnprocessedKeys } = await client.send(
          new BatchGetCommand({ RequestItems: requests }),
        );
        found.push(...(Responses?.[tableName] ?? []));
        return UnprocessedKeys && Object.keys(UnprocessedKeys).length > 0 ? UnprocessedKeys : undefined;
      },
    );
  }
  return found;
};
