// Owns the shape of the one DynamoDB table: key attributes, the secondary index and the TTL attribute.
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds after which DynamoDB may delete the item; a safety net, never the expiry check itself. */
  ttlAttribute: 'purgeAt',
  /** Accounts by scope (for start) and checks by creation time (for the scanner); see keys.ts. */
  index: { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
} as const;

export const createTableInput = (tableName: string): CreateTableCommandInput => {
  const { partitionKey, sortKey, index } = TABLE_SCHEMA;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [partitionKey, sortKey, index.partitionKey, index.sortKey].map((name) => ({
      AttributeName: name,
      AttributeType: 'S',
    })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
};
