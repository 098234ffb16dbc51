// Owns the shape of the one DynamoDB table: key attributes, the scope index and the TTL attribute.
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds after which DynamoDB may delete the item; a safety net, never the expiry check itself. */
  ttlAttribute: 'purgeAt',
  scopeIndex: { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
} as const;

export const createTableInput = (tableName: string): CreateTableCommandInput => {
  const { partitionKey, sortKey, scopeIndex } = TABLE_SCHEMA;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [partitionKey, sortKey, scopeIndex.partitionKey, scopeIndex.sortKey].map(
      (name) => ({
        AttributeName: name,
        AttributeType: 'S',
      }),
    ),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: scopeIndex.name,
        KeySchema: [
          { AttributeName: scopeIndex.partitionKey, KeyType: 'HASH' },
          { AttributeName: scopeIndex.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
};
