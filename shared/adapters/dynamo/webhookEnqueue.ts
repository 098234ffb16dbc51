// Owns enqueuing a check's webhook as it is settled: the delivery is put once (a conditional write keyed by the
// check), before the write that settles the check, so a failure between the two leaves the check open and the next
// settling finds the delivery already there; the receiver gets exactly one delivery however often this runs.
import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { newDelivery } from '../../domain/webhook';
import { checkFromItem } from './checkItem';
import { written } from './conditionalWrite';
import { checkKey } from './keys';
import { deliveryToItem } from './webhookItem';

/** The webhook id of the check's delivery, now queued (by this call or an earlier one); undefined: none is due. */
export const enqueueWebhook = async (
  client: DynamoDBDocumentClient,
  tableName: string,
  checkId: string,
  now: number,
): Promise<string | undefined> => {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: checkKey(checkId), ConsistentRead: true }),
  );
  if (!Item || Item.settledAs !== undefined) return undefined;
  const check = checkFromItem(Item);
  if (!check.callback) return undefined;
  const delivery = newDelivery(check, check.callback, now);
  await written(
    client.send(
      new PutCommand({
        TableName: tableName,
        Item: deliveryToItem(delivery),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  return delivery.webhookId;
};
