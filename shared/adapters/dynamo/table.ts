// Owns the shape of the one DynamoDB table: key attributes, the secondary indexes and the TTL attribute.
import type { CreateTableCommandInput, GlobalSecondaryIndex } from '@aws-sdk/client-dynamodb';

export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Epoch seconds after which DynamoDB may delete the item; a safety net, never the expiry check itself. */
  ttlAttribute: 'purgeAt',
  /** Accounts by scope, for start (keys.ts scopeAccountsKey). Whole items: start reads them all. */
  accountsByScope: { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projected: 'ALL' },
  /**
   * Unsettled checks by creation time, for the scanner's listing and settling (keys.ts openCheckKey). Sparse: a check
   * carries its keys until it is settled. It holds only what those two read, never the accounts' results, so a
   * result write costs the index one small write (the projected entry), not a copy of the whole check.
   */
  openChecks: {
    name: 'gsi2',
    partitionKey: 'gsi2pk',
    sortKey: 'gsi2sk',
    projected: ['checkId', 'createdAt', 'pending', 'received', 'total'],
  },
} as const;

export type SecondaryIndex = (typeof TABLE_SCHEMA)['accountsByScope' | 'openChecks'];
export const SECONDARY_INDEXES: readonly SecondaryIndex[] = [
  TABLE_SCHEMA.accountsByScope,
  TABLE_SCHEMA.openChecks,
];

const indexInput = (index: SecondaryIndex): GlobalSecondaryIndex => ({
  IndexName: index.name,
  KeySchema: [
    { AttributeName: index.partitionKey, KeyType: 'HASH' },
    { AttributeName: index.sortKey, KeyType: 'RANGE' },
  ],
  Projection:
    index.projected === 'ALL'
      ? { ProjectionType: 'ALL' }
      : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projected] },
});

export const createTableInput = (tableName: string): CreateTableCommandInput => {
  const { partitionKey, sortKey } = TABLE_SCHEMA;
  const keys = [
    partitionKey,
    sortKey,
    ...SECONDARY_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keys.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: SECONDARY_INDEXES.map(indexInput),
  };
};
