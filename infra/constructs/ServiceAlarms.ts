// Owns the alarms and where they go: a failing or silent scanner, dead-lettered scanner invocations, a mailbox that
// keeps refusing logins, API errors, Lambda and DynamoDB throttles, and too many checks ending in timeout.
import { Duration } from 'aws-cdk-lib';
import type { IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable, Operation } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLE_ACCESS } from './ServiceFunction';
import { serviceMetric } from './serviceMetrics';

export interface ServiceAlarmsProps {
  /** Prefix of every alarm name, so two deployments in one account stay apart. */
  namePrefix: string;
  scanner: IFunction;
  /** The functions behind the API's routes (start, get) and its fallback. */
  api: IFunction[];
  /** Where the scanner's failed asynchronous invocations and stream batches end up. */
  deadLetters: IQueue;
  table: ITable;
  stage: IHttpStage;
  /** Subscribed to the topic when given; SNS mails a confirmation link first. */
  alarmEmail: string | undefined;
  /** An existing topic every alarm notifies too. */
  alarmTopicArn: string | undefined;
}

/** Every DynamoDB operation any function may send (TABLE_ACCESS), for the throttle alarm. */
const TABLE_OPERATIONS = [
  ...new Set(
    Object.values(TABLE_ACCESS).flatMap((grant) =>
      [...grant.table, ...Object.values(grant.indexes).flat()].map(
        (action) => action.replace('dynamodb:', '') as Operation,
      ),
    ),
  ),
];

/** Thresholds, exported for the dashboard's lines and for the tests. */
export const ALARM_THRESHOLDS = {
  scannerErrors: 1,
  /** Fewer scanner ticks than this in 15 minutes (or none reported at all) means the scanner is not running. */
  scannerHeartbeats: 1,
  deadLetters: 1,
  apiFunctionErrors: 1,
  lambdaThrottles: 1,
  tableThrottles: 1,
  imapConsecutiveFailures: 3,
  api5xx: 5,
  timedOutShare: 0.2,
  unhealthyAccounts: 1,
} as const;

export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  private readonly namePrefix: string;
  private readonly destinations: ITopic[];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.namePrefix = props.namePrefix;
    // Not encrypted: notifications carry alarm names and states, no customer data, and CloudWatch cannot publish to
    // a topic under the AWS-managed aws/sns key, so encryption would take a customer-managed KMS key for no gain.
    this.topic = new Topic(this, 'Topic', { displayName: 'Inbox placement alarms', enforceSSL: true });
    if (props.alarmEmail !== undefined) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    this.destinations = [this.topic];
    if (props.alarmTopicArn !== undefined) {
      this.destinations.push(Topic.fromTopicArn(this, 'ExistingTopic', props.alarmTopicArn));
    }

    const fiveMinutes = Duration.minutes(5);
    const fifteenMinutes = Duration.minutes(15);

    this.add('ScannerHeartbeat', {
      description:
        'The scanner reported no tick in 15 minutes: it is not running (schedule disabled, throttled, crashing ' +
        'at start, or its metrics not arriving). Results stop arriving.',
      // Every invocation ticks at least once (the minute schedule even when idle), so silence is the failure.
      metric: serviceMetric('scannerHeartbeat', { statistic: 'Sum', period: fifteenMinutes }),
      threshold: ALARM_THRESHOLDS.scannerHeartbeats,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.BREACHING,
    });
    this.add('ScannerDeadLetters', {
      description:
        'A scanner invocation (hand-over, shard, schedule) or stream batch failed for good and was sent to the ' +
        'dead-letter queue; the message holds the event and the error. Stays in alarm until the queue is read ' +
        'and emptied.',
      metric: props.deadLetters.metricApproximateNumberOfMessagesVisible({
        statistic: 'Maximum',
        period: fiveMinutes,
      }),
      threshold: ALARM_THRESHOLDS.deadLetters,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.add('ApiFunctionErrors', {
      description: 'An API function (start, get, fallback) failed: an error or a timeout, answered as a 5xx.',
      metric: sumOf(
        'errors',
        props.api.map((fn) => fn.metricErrors({ statistic: 'Sum', period: fiveMinutes })),
        fiveMinutes,
      ),
      threshold: ALARM_THRESHOLDS.apiFunctionErrors,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.add('LambdaThrottles', {
      description:
        'A function was throttled: the API answered 429/5xx, or the scanner hit its reserved concurrency (a ' +
        'runaway of self-invocations, or more shards than scannerConcurrency allows).',
      metric: sumOf(
        'throttles',
        [...props.api, props.scanner].map((fn) =>
          fn.metricThrottles({ statistic: 'Sum', period: fiveMinutes }),
        ),
        fiveMinutes,
      ),
      threshold: ALARM_THRESHOLDS.lambdaThrottles,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.add('TableThrottles', {
      description:
        'DynamoDB throttled requests to the table (on-demand capacity exceeded for a moment or a hot key).',
      metric: props.table.metricThrottledRequestsForOperations({
        operations: TABLE_OPERATIONS,
        statistic: 'Sum',
        period: fiveMinutes,
      }),
      threshold: ALARM_THRESHOLDS.tableThrottles,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });

    this.add('ScannerErrors', {
      description:
        'The scanner Lambda failed (an error or a timeout): results stop arriving until it runs again.',
      metric: props.scanner.metricErrors({ statistic: 'Sum', period: fiveMinutes }),
      threshold: ALARM_THRESHOLDS.scannerErrors,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.add('ImapLoginFailures', {
      description:
        'One test mailbox failed 3 sweeps in a row (login, connection or read); its results stay pending. The ' +
        'ImapFailures graph on the dashboard shows which account.',
      metric: serviceMetric('consecutiveImapFailures', { statistic: 'Maximum', period: fiveMinutes }),
      threshold: ALARM_THRESHOLDS.imapConsecutiveFailures,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.add('UnhealthyAccounts', {
      description:
        'At least one test mailbox is out of new checks after failing sweeps in a row (wrong password, revoked ' +
        'OAuth consent, dead server). `npm run admin -- accounts list --stack …` shows which and why.',
      metric: serviceMetric('unhealthyAccounts', { statistic: 'Maximum', period: fiveMinutes }),
      threshold: ALARM_THRESHOLDS.unhealthyAccounts,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.add('Api5xx', {
      description: 'The API answered 5 or more 5xx responses in 5 minutes.',
      metric: props.stage.metricServerError({ statistic: 'Sum', period: fiveMinutes }),
      threshold: ALARM_THRESHOLDS.api5xx,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    });
    this.add('ChecksTimingOut', {
      description: 'More than 20% of the checks that ended in the last 15 minutes timed out.',
      // FILL: a window with timeouts but no completion (the worst case) must still give a value; with neither, the
      // result is 0/0, no data, and missing data does not breach.
      metric: new MathExpression({
        expression: 'FILL(timedOut, 0) / (FILL(completed, 0) + FILL(timedOut, 0))',
        usingMetrics: {
          timedOut: serviceMetric('checksTimedOut', { statistic: 'Sum', period: fifteenMinutes }),
          completed: serviceMetric('checksCompleted', { statistic: 'Sum', period: fifteenMinutes }),
        },
        label: 'share of ended checks that timed out',
        period: fifteenMinutes,
      }),
      threshold: ALARM_THRESHOLDS.timedOutShare,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
  }

  private add(
    id: string,
    props: {
      description: string;
      metric: IMetric;
      threshold: number;
      comparisonOperator: ComparisonOperator;
      treatMissingData?: TreatMissingData;
    },
  ): void {
    const alarm = new Alarm(this, id, {
      // No data means nothing ran or nothing failed: not an alarm by itself, except where silence is the failure.
      treatMissingData: TreatMissingData.NOT_BREACHING,
      ...props,
      alarmName: `${this.namePrefix}-${id}`,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
    });
    for (const topic of this.destinations) {
      const action = new SnsAction(topic);
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
    this.alarms.push(alarm);
  }
}

/** The sum of several series, each missing one counting as 0, so one quiet function does not blank the total. */
const sumOf = (name: string, metrics: IMetric[], period: Duration): MathExpression =>
  new MathExpression({
    expression: metrics.map((_, index) => `FILL(${name}${index}, 0)`).join(' + '),
    usingMetrics: Object.fromEntries(metrics.map((metric, index) => [`${name}${index}`, metric])),
    label: name,
    period,
  });
