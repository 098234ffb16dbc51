// Owns the conditional writes: a write refused on its condition is an answer (not written), every other failure is
// thrown; an item that must be created once is a put that never overwrites, and an existing key is a ConflictError.
import type { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../domain/errors';

/** By name, so a refusal is recognised whichever copy of the SDK (or local DynamoDB) raised it. */
export const isConditionFailed = (error: unknown): error is ConditionalCheckFailedException =>
  (error as { name?: unknown } | undefined)?.name === 'ConditionalCheckFailedException';

/** Whether a conditional write was made: false when DynamoDB refused it on its condition. */
export const written = async (write: Promise<unknown>): Promise<boolean> => {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
};

export const putOnce = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  item: Record<string, unknown>,
  what: string,
): Promise<void> => {
  const created = await written(
    client.send(
      new PutCommand({ TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    ),
  );
  if (!created) throw new ConflictError(`${what} exists`);
};
