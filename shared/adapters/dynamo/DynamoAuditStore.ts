// Owns checks' sender audits in DynamoDB: one item per check beside it, claimed once by a conditional write so two
// loops never both fetch, then completed over that claim.
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditStore, StoredAudit } from '../../audit';
import { auditBody, auditFromItem } from './auditItem';
import { written } from './conditionalWrite';
import { auditKey, type ItemType } from './keys';

export class DynamoAuditStore implements AuditStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  claim(checkId: string, claimedAt: number, purgeAt: number): Promise<boolean> {
    return written(
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...auditKey(checkId),
            type: 'audit' satisfies ItemType,
            state: 'claimed',
            claimedAt,
            purgeAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  complete(checkId: string, audit: Exclude<StoredAudit, { state: 'claimed' }>): Promise<boolean> {
    const [name, value] = audit.state === 'ready' ? ['body', auditBody(audit)] : ['why', audit.why];
    return written(
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: auditKey(checkId),
          UpdateExpression: 'SET #state = :state, auditedAt = :at, #field = :value',
          ConditionExpression: '#state = :claimed AND claimedAt = :claimedAt',
          ExpressionAttributeNames: { '#state': 'state', '#field': name },
          ExpressionAttributeValues: {
            ':state': audit.state,
            ':at': audit.auditedAt,
            ':value': value,
            ':claimed': 'claimed',
            ':claimedAt': audit.claimedAt,
          },
        }),
      ),
    );
  }

  async get(checkId: string): Promise<StoredAudit | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: auditKey(checkId), ConsistentRead: true }),
    );
    return Item ? auditFromItem(Item) : undefined;
  }
}
