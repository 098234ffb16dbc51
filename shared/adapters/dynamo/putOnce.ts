// Owns the conditional write for items that must be created once: an existing key is a ConflictError, never an overwrite.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../domain/errors';

export const putOnce = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
  what: string,
): Promise<void> => {
  try {
    await client.send(
      new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new ConflictError(`${what} exists`);
    throw error;
  }
};
