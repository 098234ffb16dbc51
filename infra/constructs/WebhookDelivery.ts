// Owns sending signed webhooks on AWS: the sender function with a role of its own (it reads deliveries and webhook
// secrets and writes only a delivery's state), woken by a delivery's insert on the table's stream and then by the
// retry queue, whose messages wait out each backoff; failures end in a dead-letter queue the stack alarms on.
import { Duration, Validations } from 'aws-cdk-lib';
import { GraphWidget, type IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { type Alias, FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { KEY_PREFIXES } from '../../shared/adapters/dynamo/keys';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { SERVICES } from '../../shared/telemetry/metrics';
import { functionEntry } from '../paths';
import { type KeyGrant, tableStatements } from '../tableKeys';
import { type CommonFunctionProps, ServiceFunction } from './ServiceFunction';

/** Deliveries and webhook secrets read; only a delivery written (its attempts and state). */
const WEBHOOK_TABLE_ACCESS = {
  actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
  keys: { read: ['webhook', 'webhookSecrets'], write: ['webhook'] } satisfies KeyGrant,
} as const;

/** A turn is one POST (10 s at most) and a few reads and writes; a batch of turns runs one after another. */
const SENDER_TIMEOUT = Duration.seconds(60);

export interface WebhookDeliveryProps extends CommonFunctionProps {
  table: ITable;
  /** Opens the webhook secrets it signs with (never seals: rotations are the admin CLI's). */
  sealingKey: IKey;
}

export class WebhookDelivery extends Construct {
  readonly sender: ServiceFunction;
  /** Deliveries waiting for their next attempt. */
  readonly retries: Queue;
  /** Turns that failed for good (the store unreachable, a stream batch that kept failing). */
  readonly deadLetters: Queue;
  /** The alias the stream and the queue invoke, which CodeDeploy moves (SafeDeploys). */
  readonly live: Alias;

  constructor(scope: Construct, id: string, props: WebhookDeliveryProps) {
    super(scope, id);
    const { table, sealingKey, ...common } = props;
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.retries = new Queue(this, 'Retries', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the function's timeout, as Lambda asks of a queue it reads.
      visibilityTimeout: Duration.seconds(SENDER_TIMEOUT.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: 5 },
    });
    this.sender = new ServiceFunction(this, 'Sender', {
      ...common,
      entry: functionEntry('webhook'),
      service: SERVICES.webhook,
      description: 'Sends signed webhooks when checks end, and retries them',
      timeout: SENDER_TIMEOUT,
      environment: { WEBHOOK_QUEUE_URL: this.retries.queueUrl },
    });
    this.sender.addEnvironment('TABLE_NAME', table.tableName);
    for (const statement of tableStatements(
      table.tableArn,
      WEBHOOK_TABLE_ACCESS.actions,
      WEBHOOK_TABLE_ACCESS.keys,
    ))
      this.sender.addToRolePolicy(statement);
    this.sender.bindSealingKey(sealingKey, { open: ['webhook-secrets'] });
    this.retries.grantSendMessages(this.sender);
    const live = this.sender.live();
    this.live = live;
    // A delivery's first turn at once: only the INSERT of a delivery item passes the filter.
    live.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 10,
        bisectBatchOnError: true,
        // The handler reports a failed record by its sequence number (Powertools' batch): retried from it, not the batch.
        reportBatchItemFailures: true,
        retryAttempts: 5,
        onFailure: new SqsDlq(this.deadLetters),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: {
              Keys: { [TABLE_SCHEMA.partitionKey]: { S: FilterRule.beginsWith(KEY_PREFIXES.webhook) } },
            },
          }),
        ],
      }),
    );
    live.addEventSource(new SqsEventSource(this.retries, { batchSize: 10, reportBatchItemFailures: true }));
    const policy = this.sender.role?.node.tryFindChild('DefaultPolicy');
    if (policy)
      Validations.of(policy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only dynamodb:ListStreams, which the stream event source needs and which supports no resource-level permission.',
      });
  }

  /** The dashboard's webhook graph: retries due and waiting, dead letters, and the sender's errors. */
  widgets(): IWidget[] {
    return [
      new GraphWidget({
        title: 'Webhooks: waiting deliveries and sender errors',
        left: [
          this.retries.metricApproximateNumberOfMessagesVisible({ label: 'retries due' }),
          this.retries.metric('ApproximateNumberOfMessagesDelayed', { label: 'retries waiting' }),
          this.deadLetters.metricApproximateNumberOfMessagesVisible({ label: 'dead letters' }),
        ],
        right: [this.sender.metricErrors({ period: Duration.minutes(1), label: 'sender errors' })],
        width: 12,
      }),
    ];
  }
}
