// Owns the stateful part: the one DynamoDB table, the secret with the mailbox credentials not moved to items yet, the
// KMS key every sealed item is sealed under (and the operator's policy over them). All are retained when the stack is
// deleted, and nothing here changes when a function does.
import { CfnOutput, RemovalPolicy, SecretValue, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { SECONDARY_INDEXES, TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { CAPACITY_OUTPUTS } from '../../shared/scanner/scannerCapacity';
import { createSealingKey } from '../constructs/sealingKey';
import { addOperatorPolicy } from '../operatorPolicy';

/**
 * The secret's first value: the documented shape with no account, so the scanner finds nothing rather than failing.
 * It is a constant, not generated: CloudFormation writes SecretString only when this property changes, so the
 * credentials an operator puts in with `put-secret-value` survive every later deploy. Changing this constant would
 * overwrite them; it holds no credential, which is why its being in the template is harmless. (generateSecretString
 * would add a random key nobody reads, and is overwritten the same way when its template changes.)
 */
export const CREDENTIALS_PLACEHOLDER = JSON.stringify({ accounts: [] });

export interface DataStackProps extends StackProps {
  /** Names the secret `<stage>-inbox-placement-credentials`; without one it keeps the name it was created with. */
  stage?: string | undefined;
  /**
   * What the service's scanner holds, published here beside the table (the one stack the operator's policy may
   * read), so `accounts add` refuses a mailbox the scanner's reservation could not sweep.
   */
  scanner?: { reservation: number; shardSize: number; mailboxes: number };
}

export class DataStack extends Stack {
  readonly table: Table;
  readonly credentials: Secret;
  /** Seals credential items, webhook secrets and monitor messages: no key material in the secret or the table. */
  readonly sealingKey: Key;

  constructor(scope: Construct, id: string, props?: DataStackProps) {
    super(scope, id, props);
    const { partitionKey, sortKey, ttlAttribute } = TABLE_SCHEMA;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      sortKey: { name: sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Keys are all the scanner needs: a new check's INSERT wakes it at once, and it reads the check itself.
      stream: StreamViewType.KEYS_ONLY,
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
    });
    // CloudFormation adds or removes one index per update: a new index goes in a deploy of its own.
    for (const index of SECONDARY_INDEXES) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        ...(index.projected === 'ALL'
          ? { projectionType: ProjectionType.ALL }
          : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projected] }),
      });
    }

    this.credentials = new Secret(this, 'MailboxCredentials', {
      description:
        'IMAP credentials of the test mailboxes, {"accounts":[...]} as in config/local.json; read only by the scanner',
      secretStringValue: SecretValue.unsafePlainText(CREDENTIALS_PLACEHOLDER),
      // Renaming a secret replaces it, so the default stage keeps its generated name and a deploy replaces nothing.
      ...(props?.stage === undefined ? {} : { secretName: `${props.stage}-inbox-placement-credentials` }),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.credentials).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'The secret holds app passwords issued by each mailbox provider; no Lambda can rotate them, an operator ' +
        'replaces them with put-secret-value when the provider does.',
    });

    this.sealingKey = createSealingKey(this, props?.stage);

    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The DynamoDB table' });
    new CfnOutput(this, 'CredentialsSecretArn', {
      value: this.credentials.secretArn,
      description: 'Put the mailbox credentials here: aws secretsmanager put-secret-value --secret-id <arn>',
    });
    new CfnOutput(this, 'CredentialsSecretName', {
      value: this.credentials.secretName,
      description: 'The same secret',
    });
    new CfnOutput(this, 'SealingKeyArn', {
      value: this.sealingKey.keyArn,
      description: 'The KMS key items are sealed under (npm run admin finds it here; --kms-key names it)',
    });
    if (props?.scanner) {
      new CfnOutput(this, CAPACITY_OUTPUTS.reservation, {
        value: String(props.scanner.reservation),
        description: `The scanner's reserved concurrency, planned for ${props.scanner.mailboxes} mailboxes`,
      });
      new CfnOutput(this, CAPACITY_OUTPUTS.shardSize, {
        value: String(props.scanner.shardSize),
        description: 'The most accounts one scanner shard holds',
      });
    }
    addOperatorPolicy(this, this.table, this.credentials, this.sealingKey);
  }
}
