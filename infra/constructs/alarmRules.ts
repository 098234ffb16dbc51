// Owns what each alarm watches and when it fires: metric, threshold, how many datapoints out of how many, and what
// missing data means. ServiceAlarms turns these rules into alarms and sends them somewhere.
import { Duration } from 'aws-cdk-lib';
import type { IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { ComparisonOperator, type IMetric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { shareWithVolume, sumOf, valueWithVolume } from './metricMath';
import { TABLE_ACCESS } from './ServiceFunction';
import type { ServiceMetrics } from './serviceMetrics';

export interface AlarmSources {
  /** The service's own metrics, in this stage's namespace. */
  metrics: ServiceMetrics;
  scanner: IFunction;
  /** The scanner's reserved concurrency: the ceiling its concurrency alarm watches. */
  scannerReservation: number;
  /** The functions behind the API's routes (start, get) and its fallback. */
  api: IFunction[];
  /** Every dead-letter queue, by the name its alarm starts with (`Scanner` → ScannerDeadLetters). */
  deadLetters: Record<string, IQueue>;
  table: ITable;
  stage: IHttpStage;
}

export interface AlarmRule {
  id: string;
  description: string;
  metric: IMetric;
  threshold: number;
  comparisonOperator: ComparisonOperator;
  /** How many of the last `evaluationPeriods` datapoints must breach. */
  datapointsToAlarm: number;
  evaluationPeriods: number;
  treatMissingData: TreatMissingData;
}

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
  /** Share of a minute's requests answered 5xx, counted only in a minute with `apiMinimumRequests` or more. */
  api5xxShare: 0.05,
  /** The API's p99 latency, counted only in a minute with `apiMinimumRequests` or more. */
  apiLatencyP99Ms: 2500,
  apiMinimumRequests: 10,
  timedOutShare: 0.2,
  /** Checks ended in 15 minutes below which their timed-out share is not judged. */
  minimumEndedChecks: 10,
  unhealthyAccounts: 1,
  /** The oldest new-check record the stream still holds: past this, wake-ups fall behind. */
  iteratorAgeMs: 30_000,
  /** Of the scanner's reserved concurrency: past this, hand-overs and shards are about to be throttled. */
  scannerConcurrencyShare: 0.8,
} as const;

/** Every DynamoDB operation any function may send (TABLE_ACCESS), for the throttle alarm. */
const TABLE_OPERATIONS = [
  ...new Set(
    Object.values(TABLE_ACCESS).flatMap((grant) =>
      [...grant.table, ...Object.values(grant.indexes).flat()].map((action) =>
        action.replace('dynamodb:', ''),
      ),
    ),
  ),
];

const ONE_MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);
const FIFTEEN_MINUTES = Duration.minutes(15);

/**
 * Metrics AWS publishes every minute: 3 breaching minutes of the last 5. A blip (one cold start, one throttled
 * burst, one failed request) does not page; a fault that lasts does within minutes.
 */
const MINUTES = { datapointsToAlarm: 3, evaluationPeriods: 5 } as const;
/** The scanner's own metrics and its errors, in 5-minute periods (a loop runs up to 5 minutes): 2 of the last 3. */
const PERIODS = { datapointsToAlarm: 2, evaluationPeriods: 3 } as const;

const atLeast = ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD;
// No data means nothing ran or nothing failed: not an alarm by itself, except where silence is the failure.
const quietIsFine = TreatMissingData.NOT_BREACHING;

export const alarmRules = (s: AlarmSources): AlarmRule[] => {
  const requests = s.stage.metricCount({ statistic: 'Sum', period: ONE_MINUTE });
  const m = s.metrics;
  return [
    {
      id: 'ScannerHeartbeat',
      description:
        'The scanner reported no tick in 15 minutes: it is not running (schedule disabled, throttled, crashing ' +
        'at start, or its metrics not arriving). Results stop arriving.',
      // Every invocation ticks at least once (the minute schedule even when idle), so silence is the failure; one
      // 15-minute window of it is already the proof, so this alarm alone needs no second datapoint.
      metric: m.metric('scannerHeartbeat', { statistic: 'Sum', period: FIFTEEN_MINUTES }),
      threshold: ALARM_THRESHOLDS.scannerHeartbeats,
      comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
      datapointsToAlarm: 1,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.BREACHING,
    },
    ...Object.entries(s.deadLetters).map(
      ([name, queue]): AlarmRule => ({
        id: `${name}DeadLetters`,
        description:
          `A message is waiting in the ${name} dead-letter queue: an invocation or stream batch failed for good; ` +
          'the message holds the event and the error. Stays in alarm until the queue is read and emptied.',
        metric: queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: ONE_MINUTE }),
        threshold: ALARM_THRESHOLDS.deadLetters,
        comparisonOperator: atLeast,
        ...MINUTES,
        // SQS stops reporting a queue nobody touches for hours: a message left there must keep the alarm up.
        treatMissingData: TreatMissingData.IGNORE,
      }),
    ),
    {
      id: 'ApiFunctionErrors',
      description:
        'An API function (start, get, fallback) failed (an error or a timeout, answered as a 5xx) in 3 of 5 minutes.',
      metric: sumOf(
        'errors',
        s.api.map((fn) => fn.metricErrors({ statistic: 'Sum', period: ONE_MINUTE })),
        ONE_MINUTE,
      ),
      threshold: ALARM_THRESHOLDS.apiFunctionErrors,
      comparisonOperator: atLeast,
      ...MINUTES,
      treatMissingData: quietIsFine,
    },
    {
      id: 'LambdaThrottles',
      description:
        'A function was throttled in 3 of 5 minutes: the API answered 429/5xx, or the scanner hit its reserved ' +
        'concurrency (a runaway of self-invocations, or more shards than scannerConcurrency allows).',
      metric: sumOf(
        'throttles',
        [...s.api, s.scanner].map((fn) => fn.metricThrottles({ statistic: 'Sum', period: ONE_MINUTE })),
        ONE_MINUTE,
      ),
      threshold: ALARM_THRESHOLDS.lambdaThrottles,
      comparisonOperator: atLeast,
      ...MINUTES,
      treatMissingData: quietIsFine,
    },
    {
      id: 'TableThrottles',
      description:
        'DynamoDB throttled requests to the table in 3 of 5 minutes (on-demand capacity exceeded, or a hot key).',
      metric: sumOf(
        'throttled',
        TABLE_OPERATIONS.map((operation) =>
          s.table.metric('ThrottledRequests', {
            dimensionsMap: { TableName: s.table.tableName, Operation: operation },
            statistic: 'Sum',
            period: ONE_MINUTE,
          }),
        ),
        ONE_MINUTE,
      ),
      threshold: ALARM_THRESHOLDS.tableThrottles,
      comparisonOperator: atLeast,
      ...MINUTES,
      treatMissingData: quietIsFine,
    },
    {
      id: 'ScannerErrors',
      description:
        'The scanner Lambda failed (an error or a timeout) in 2 of the last 3 five-minute periods.',
      metric: s.scanner.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES }),
      threshold: ALARM_THRESHOLDS.scannerErrors,
      comparisonOperator: atLeast,
      ...PERIODS,
      treatMissingData: quietIsFine,
    },
    {
      id: 'ScannerIteratorAge',
      description:
        'New-check records wait over 30 s in the table stream before the scanner is woken: wake-ups are ' +
        'falling behind (the scanner throttled or failing on the stream); records over a minute old are dropped.',
      metric: s.scanner.metric('IteratorAge', { statistic: 'Maximum', period: ONE_MINUTE }),
      threshold: ALARM_THRESHOLDS.iteratorAgeMs,
      comparisonOperator: atLeast,
      ...MINUTES,
      treatMissingData: quietIsFine,
    },
    {
      id: 'ScannerConcurrency',
      description:
        'The scanner ran at 80% or more of its reserved concurrency in 3 of 5 minutes: more shards or hand-overs ' +
        'will be throttled. Raise scannerConcurrency (and the account quota) or look for a runaway.',
      metric: s.scanner.metric('ConcurrentExecutions', { statistic: 'Maximum', period: ONE_MINUTE }),
      threshold: Math.ceil(s.scannerReservation * ALARM_THRESHOLDS.scannerConcurrencyShare),
      comparisonOperator: atLeast,
      ...MINUTES,
      treatMissingData: quietIsFine,
    },
    {
      id: 'ImapLoginFailures',
      description:
        'One test mailbox failed 3 sweeps in a row (login, connection or read); its results stay pending. The ' +
        'ImapFailures graph on the dashboard shows which account.',
      metric: m.metric('consecutiveImapFailures', { statistic: 'Maximum', period: FIVE_MINUTES }),
      threshold: ALARM_THRESHOLDS.imapConsecutiveFailures,
      comparisonOperator: atLeast,
      ...PERIODS,
      treatMissingData: quietIsFine,
    },
    {
      id: 'UnhealthyAccounts',
      description:
        'At least one test mailbox is out of new checks after failing sweeps in a row (wrong password, revoked ' +
        'OAuth consent, dead server). `npm run admin -- accounts list --stack …` shows which and why.',
      metric: m.metric('unhealthyAccounts', { statistic: 'Maximum', period: FIVE_MINUTES }),
      threshold: ALARM_THRESHOLDS.unhealthyAccounts,
      comparisonOperator: atLeast,
      ...PERIODS,
      treatMissingData: quietIsFine,
    },
    {
      id: 'Api5xx',
      description:
        'Over 5% of the API requests were answered 5xx in 3 of 5 minutes (minutes with 10 or more requests).',
      metric: shareWithVolume({
        metrics: { failed: s.stage.metricServerError({ statistic: 'Sum', period: ONE_MINUTE }), requests },
        part: 'failed',
        whole: ['requests'],
        minimum: ALARM_THRESHOLDS.apiMinimumRequests,
        label: 'share of requests answered 5xx',
        period: ONE_MINUTE,
      }),
      threshold: ALARM_THRESHOLDS.api5xxShare,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      ...MINUTES,
      treatMissingData: quietIsFine,
    },
    {
      id: 'ApiLatency',
      description:
        'The API answered slower than 2.5 s at p99 in 3 of 5 minutes (minutes with 10 or more requests).',
      metric: valueWithVolume({
        value: s.stage.metricLatency({ statistic: 'p99', period: ONE_MINUTE }),
        volume: requests,
        minimum: ALARM_THRESHOLDS.apiMinimumRequests,
        label: 'API latency p99 (ms)',
        period: ONE_MINUTE,
      }),
      threshold: ALARM_THRESHOLDS.apiLatencyP99Ms,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      ...MINUTES,
      treatMissingData: quietIsFine,
    },
    {
      id: 'ChecksTimingOut',
      description:
        'More than 20% of the checks that ended timed out, in 2 of the last 3 fifteen-minute periods (periods with ' +
        '10 or more ended checks).',
      metric: shareWithVolume({
        metrics: {
          timedOut: m.metric('checksTimedOut', { statistic: 'Sum', period: FIFTEEN_MINUTES }),
          completed: m.metric('checksCompleted', { statistic: 'Sum', period: FIFTEEN_MINUTES }),
        },
        part: 'timedOut',
        whole: ['completed', 'timedOut'],
        minimum: ALARM_THRESHOLDS.minimumEndedChecks,
        label: 'share of ended checks that timed out',
        period: FIFTEEN_MINUTES,
      }),
      threshold: ALARM_THRESHOLDS.timedOutShare,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      ...PERIODS,
      treatMissingData: quietIsFine,
    },
  ];
};
