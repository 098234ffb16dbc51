// Owns the monitors' schedule on AWS: a function with its own role that runs every due monitor (the tick npm start's
// schedule runs), its schedule, and its alarms: errors, a heartbeat, and the drop alarm over every monitor's judgement.
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, MathExpression, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { METRICS, SERVICE_DIMENSION, SERVICES } from '../../shared/telemetry/metrics';
import { functionEntry } from '../paths';
import { TABLE_KEYS } from '../tableKeys';
import type { LogQueries } from './LogQueries';
import { type CommonFunctionProps, ServiceFunction } from './ServiceFunction';
import type { ServiceMetrics } from './serviceMetrics';
import type { TableGrant } from './tableAccess';

export interface MonitorRunsProps {
  table: ITable;
  /** From DataStack: opens each monitor's message (the admin CLI seals it). */
  sealingKey: IKey;
  common: CommonFunctionProps;
  /** The stage's own metrics: the heartbeat and the drop alarm read this stage only. */
  metrics: ServiceMetrics;
  /** The service's alarms: these go to the same topic. */
  alarms: { topic: ITopic };
  /**
   * The stack's dead-letter queue (its alarm, ScannerDeadLetters, watches it): a failed invocation, or one the
   * schedule could not deliver, lands there with its error, as every asynchronous invocation of the stack does.
   */
  deadLetters: IQueue;
  /** The saved queries: monitor-alarms reads this function's log group. */
  logQueries: LogQueries;
  /** Why the runtime is pinned (cdk-nag's L1), as the stack says it for every function. */
  reason: string;
}

/**
 * What the schedule does to the table, as TABLE_ACCESS (ServiceFunction.ts) spells each function's: the monitors
 * (Query of their partition, GetItem, UpdateItem of the next run), the sealed message's parts (GetItem), the runs
 * (PutItem, Query), the run's check as the calibration's (layout GetItem, check PutItem, shard entries
 * BatchWriteItem, GetItem; its audit GetItem), the scope's active seeds (Query on the accounts index).
 */
const MONITOR_TABLE_ACCESS = {
  table: [
    'dynamodb:GetItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:BatchWriteItem',
    'dynamodb:Query',
  ],
  indexes: { [TABLE_SCHEMA.accountsByScope.name]: ['dynamodb:Query'] },
  keys: TABLE_KEYS.monitors,
} as const satisfies TableGrant;

/** Due monitors are looked for this often: on AWS a monitor runs up to this late, and no more often than this. */
export const MONITOR_SCHEDULE = Duration.minutes(5);
/** Lambda's most: room for two runs of 5 minutes each and their sends (RUN_RESERVE_MS stops before the end). */
const MONITOR_TIMEOUT = Duration.minutes(15);
/** A judgement comes once a run; an hour pools every monitor that ran in it. */
const DROP_PERIOD = Duration.hours(1);

/**
 * The highest MonitorDrop of any monitor and provider: a Metrics Insights query, because an alarm may not use SEARCH
 * and the monitors are data, unknown at synth. Metrics Insights looks back 3 hours, more than one period.
 */
export const monitorDropQuery = (namespace: string) =>
  `SELECT MAX(${METRICS.monitorDrop.name}) FROM SCHEMA("${namespace}", ` +
  `${SERVICE_DIMENSION}, ${METRICS.monitorDrop.dimension}, ${METRICS.monitorDrop.secondDimension}) ` +
  `WHERE ${SERVICE_DIMENSION} = '${METRICS.monitorDrop.service}'`;

export class MonitorRuns extends Construct {
  readonly function: ServiceFunction;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitorRunsProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, 'Function', {
      ...props.common,
      entry: functionEntry('monitors'),
      service: SERVICES.monitor,
      description:
        'Runs every monitor whose time has come: its message checked, its counts and judgement kept',
      timeout: MONITOR_TIMEOUT,
      // One tick at a time: two would both find the same monitor due (its next run is not a conditional write).
      reservedConcurrentExecutions: 1,
      retryAttempts: 0,
      // A tick throttled behind a long one is worth nothing: the next schedule looks again.
      maxEventAge: Duration.minutes(1),
      onFailure: new SqsDestination(props.deadLetters),
    })
      .bindTable(props.table, MONITOR_TABLE_ACCESS)
      .bindSealingKey(props.sealingKey, { open: ['monitor-message'] });
    props.logQueries.addFunction(this.function);
    Validations.of(this.function).acknowledge({ id: 'AwsSolutions-L1', reason: props.reason });
    new Rule(this, 'Schedule', {
      description: `Runs the due monitors every ${MONITOR_SCHEDULE.toHumanString()}`,
      schedule: Schedule.rate(MONITOR_SCHEDULE),
      // The live alias, as every other caller: a run uses the version that passed the deploy.
      targets: [
        new LambdaFunction(
          this.function.live({
            retryAttempts: 0,
            maxEventAge: Duration.minutes(1),
            onFailure: new SqsDestination(props.deadLetters),
          }),
          { retryAttempts: 0, deadLetterQueue: props.deadLetters },
        ),
      ],
    });
    this.addAlarms(props);
  }

  private addAlarms(props: MonitorRunsProps): void {
    const namePrefix = Stack.of(this).stackName;
    const action = new SnsAction(props.alarms.topic);
    const add = (alarm: Alarm) => {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      this.alarms.push(alarm);
    };
    add(
      new Alarm(this, 'Errors', {
        alarmName: `${namePrefix}-MonitorScheduleErrors`,
        alarmDescription:
          'The monitor schedule failed: its log group says why (a monitor that fails alone is a warn line instead)',
        metric: this.function.metricErrors({ statistic: 'Sum', period: MONITOR_TIMEOUT }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    add(
      new Alarm(this, 'Heartbeat', {
        alarmName: `${namePrefix}-MonitorScheduleHeartbeat`,
        alarmDescription: 'The monitor schedule has not run for an hour: no monitor runs until it does',
        metric: props.metrics.metric('monitorScheduleTicks', { statistic: 'Sum', period: DROP_PERIOD }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
        evaluationPeriods: 1,
        // Silence is the failure this alarm is for.
        treatMissingData: TreatMissingData.BREACHING,
      }),
    );
    add(
      new Alarm(this, 'Drop', {
        alarmName: `${namePrefix}-MonitorDrop`,
        alarmDescription:
          'A monitor judged a real drop at a provider, or the message (not the seeds) landing worse than the ' +
          'control: run `npm run admin -- monitors status <name> --scope S --stack <stack>` for the provider, the rates with ' +
          'their intervals and the run ids (the saved query monitor-alarms lists the judgements).',
        metric: new MathExpression({
          expression: monitorDropQuery(props.metrics.namespace),
          usingMetrics: {},
          label: 'highest MonitorDrop',
          period: DROP_PERIOD,
        }),
        threshold: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 1,
        // No run in the hour says nothing new: the alarm stays as the last judgement left it.
        treatMissingData: TreatMissingData.IGNORE,
      }),
    );
  }
}
