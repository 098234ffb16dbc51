// Owns the scheduled calibration on AWS: the control sender's secret, a function with its own role that sends the
// control message to every seed and keeps where it landed, its schedule, its dashboard row and its alarms.
import { Duration, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  type AlarmProps,
  ComparisonOperator,
  type Dashboard,
  GraphWidget,
  Metric,
  TextWidget,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { PROVIDERS } from '../../shared/providers/providerPreset';
import { METRICS, SERVICE_DIMENSION, SERVICES } from '../../shared/telemetry/metrics';
import { functionEntry } from '../paths';
import { type CommonFunctionProps, ServiceFunction, TABLE_ACCESS } from './ServiceFunction';
import type { ServiceMetrics } from './serviceMetrics';

export interface CalibrationProps {
  table: ITable;
  everyMs: number;
  controlFrom: string;
  /** A provider's control inbox rate under which its alarm fires. */
  inboxThreshold: number;
  common: CommonFunctionProps;
  namePrefix: string;
  /** The service's own metrics, in this stage's namespace. */
  metrics: ServiceMetrics;
  dashboard: Dashboard;
  alarmTopic: ITopic;
  /** Why the runtime is pinned (cdk-nag's L1), as the stack says it for every function. */
  runtimeReason: string;
}

/** Each control check lasts up to 5 minutes; the scopes run side by side, sending and recording around that. */
const CALIBRATION_TIMEOUT = Duration.minutes(10);

export class Calibration extends Construct {
  readonly function: ServiceFunction;
  readonly secret: Secret;
  readonly alarms: Alarm[] = [];
  /** The alias the schedule invokes, which CodeDeploy moves (SafeDeploys). */
  readonly live: Alias;
  /** The alarms that roll a calibration deployment back. */
  readonly rollbackAlarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: CalibrationProps) {
    super(scope, id);
    const m = props.metrics;
    const every = Duration.millis(props.everyMs);
    this.secret = new Secret(this, 'ControlSender', {
      description:
        'The control sender: {"url": "smtps://user@smtp.example.com:465", "password": "…"}; DKIM is the ESP\'s job',
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: "An ESP's SMTP password is issued by the ESP; the operator rotates it there and puts it here.",
    });
    this.function = new ServiceFunction(this, 'Function', {
      ...props.common,
      entry: functionEntry('calibrate'),
      service: SERVICES.calibration,
      description: 'Sends the control message to every seed and keeps where it landed',
      timeout: CALIBRATION_TIMEOUT,
      // One run at a time: a second would start control checks beside the first and count its seeds twice.
      reservedConcurrentExecutions: 1,
      retryAttempts: 0,
      environment: { CONTROL_FROM: props.controlFrom, CONTROL_SENDER_SECRET_ID: this.secret.secretArn },
    }).bindTable(props.table, TABLE_ACCESS.calibration);
    this.secret.grantRead(this.function);
    Validations.of(this.function).acknowledge({ id: 'AwsSolutions-L1', reason: props.runtimeReason });
    this.live = this.function.live();
    new Rule(this, 'Schedule', {
      description: `Runs the calibration every ${every.toHumanString()}`,
      schedule: Schedule.rate(every),
      // The live alias, as every other caller: a calibration runs the version that passed the deploy.
      targets: [new LambdaFunction(this.live, { retryAttempts: 0 })],
    });
    this.pageOnSilenceAndErrors(props, every);

    // One sample per seed per run: the period is the schedule's, so each point is one calibration.
    const period = every.toMinutes() > 24 * 60 ? Duration.days(1) : every;
    const action = new SnsAction(props.alarmTopic);
    for (const provider of PROVIDERS) {
      const alarm = new Alarm(this, `ControlInbox-${provider}`, {
        alarmName: `${props.namePrefix}-ControlInbox-${provider}`,
        alarmDescription: `The control message reached the inbox at ${provider} less often than the threshold: look at those seeds and the sending path (npm run admin -- accounts health)`,
        metric: new Metric({
          namespace: m.namespace,
          metricName: METRICS.controlInbox.name,
          dimensionsMap: {
            [SERVICE_DIMENSION]: METRICS.controlInbox.service,
            [METRICS.controlInbox.dimension]: provider,
          },
          statistic: 'Average',
          period,
        }),
        threshold: props.inboxThreshold,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        // Two of the last three calibrations, as a seed turns suspect: one bad run is chance, not a trend.
        datapointsToAlarm: 2,
        evaluationPeriods: 3,
        // A provider with no seeds sends no data: nothing to alarm on.
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      this.alarms.push(alarm);
    }

    this.widgets(props, period);
  }

  /** Errors of any run, and a schedule that stopped running (or runs that never finish): both page. */
  private pageOnSilenceAndErrors(props: CalibrationProps, every: Duration): void {
    const action = new SnsAction(props.alarmTopic);
    const alarm = (id: string, alarmProps: Omit<AlarmProps, 'alarmName'>) => {
      const created = new Alarm(this, id, { ...alarmProps, alarmName: `${props.namePrefix}-${id}` });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };
    this.rollbackAlarms.push(
      alarm('CalibrationErrors', {
        alarmDescription:
          'A calibration run failed (a scope failed, an error or a timeout): look at its log for the scope.',
        metric: this.function.metricErrors({ statistic: 'Sum', period: Duration.minutes(5) }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    // Two schedule periods (CloudWatch's longest alarm period is a day) with no finished run: a window's edge may
    // fall so that one period holds no run, never two in a row.
    const period = every.toMinutes() > 24 * 60 ? Duration.days(1) : every;
    alarm('CalibrationHeartbeat', {
      alarmDescription:
        'No calibration run finished in two schedule periods: the schedule stopped, or every run dies before its end.',
      metric: props.metrics.metric('calibrationHeartbeat', { statistic: 'Sum', period }),
      threshold: 1,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      datapointsToAlarm: 2,
      evaluationPeriods: 2,
      treatMissingData: TreatMissingData.BREACHING,
    });
  }

  private widgets(props: CalibrationProps, period: Duration): void {
    const m = props.metrics;
    props.dashboard.addWidgets(new TextWidget({ markdown: '## Calibration', width: 24, height: 1 }));
    props.dashboard.addWidgets(
      new GraphWidget({
        title: 'Control inbox rate by provider',
        left: [m.search('controlInbox', 'Average', period)],
        leftYAxis: { min: 0, max: 1 },
        leftAnnotations: [{ value: props.inboxThreshold, label: 'alarm under' }],
        width: 8,
        height: 6,
        period,
      }),
      new GraphWidget({
        title: 'Control astray at most seeds, by provider',
        left: [m.search('controlAstray', 'Maximum', period)],
        leftYAxis: { min: 0, max: 1 },
        width: 8,
        height: 6,
        period,
      }),
      new GraphWidget({
        title: 'Suspect seeds, and runs finished',
        left: [m.metric('suspectSeeds', { statistic: 'Maximum', period })],
        right: [m.metric('calibrationHeartbeat', { statistic: 'Sum', period, label: 'runs finished' })],
        width: 8,
        height: 6,
        period,
      }),
    );
  }
}
