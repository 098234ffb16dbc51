// Owns paging through a filtered Scan of the table: operator listings, and the auth cache's list of keys past its read
// budget (at most once per DEFAULT_KEY_LIST_EVERY_MS per process, never per request).
import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { ItemType } from './keys';

export const scanItemsOfType = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  type: ItemType,
): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  const pages = paginateScan(
    { client },
    {
      TableName: tableName,
      FilterExpression: '#type = :type',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':type': type },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
};
