// Owns the alarms and the SNS topic they notify: a failing scanner, a mailbox that keeps refusing logins, an API
// answering 5xx, and too many checks ending in timeout.
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
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { serviceMetric } from './serviceMetrics';

export interface ServiceAlarmsProps {
  /** Prefix of every alarm name, so two deployments in one account stay apart. */
  namePrefix: string;
  scanner: IFunction;
  stage: IHttpStage;
  /** Subscribed to the topic when given; SNS mails a confirmation link first. */
  alarmEmail: string | undefined;
}

/** Thresholds, exported for the dashboard's lines and for the tests. */
export const ALARM_THRESHOLDS = {
  scannerErrors: 1,
  imapConsecutiveFailures: 3,
  api5xx: 5,
  timedOutShare: 0.2,
  unhealthyAccounts: 1,
} as const;

export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  private readonly namePrefix: string;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.namePrefix = props.namePrefix;
    // Not encrypted: notifications carry alarm names and states, no customer data, and CloudWatch cannot publish to
    // a topic under the AWS-managed aws/sns key, so encryption would take a customer-managed KMS key for no gain.
    this.topic = new Topic(this, 'Topic', { displayName: 'Inbox placement alarms', enforceSSL: true });
    if (props.alarmEmail !== undefined) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));

    const fiveMinutes = Duration.minutes(5);
    const fifteenMinutes = Duration.minutes(15);

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
    },
  ): void {
    const alarm = new Alarm(this, id, {
      ...props,
      alarmName: `${this.namePrefix}-${id}`,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      // No data means nothing ran or nothing failed: never an alarm by itself.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    const action = new SnsAction(this.topic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    this.alarms.push(alarm);
  }
}
