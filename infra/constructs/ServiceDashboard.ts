// Owns the one CloudWatch dashboard: the API as API Gateway sees it, each function as Lambda sees it, the scanner's
// wake-ups, capacity and dead letters, the service's own metrics (built from shared/telemetry/metrics.ts), the sender
// audit's shares (auditWidgets.ts), and the state of every alarm.
import { Duration } from 'aws-cdk-lib';
import type { IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  type HorizontalAnnotation,
  type IAlarm,
  type IMetric,
  type MetricOptions,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ALARM_THRESHOLDS } from './alarmRules';
import { auditWidgets } from './auditWidgets';
import type { ServiceMetrics } from './serviceMetrics';

export interface ServiceDashboardProps {
  dashboardName: string;
  /** The service's own metrics, in this stage's namespace. */
  metrics: ServiceMetrics;
  stage: IHttpStage;
  /** By the name to show in the legend. */
  functions: Record<string, IFunction>;
  /** Drawn on the failures graph: the ImapConsecutiveFailures maximum at which the alarm fires. */
  imapFailureThreshold: number;
  scanner: IFunction;
  /** The scanner's reserved concurrency, drawn beside its concurrency. */
  scannerReservation: number;
  /** Every dead-letter queue, by name. */
  deadLetters: Record<string, IQueue>;
}

const WIDTH = 8;
const HEIGHT = 6;
const FIVE_MINUTES = Duration.minutes(5);

const graph = (
  title: string,
  left: IMetric[],
  extra: Partial<ConstructorParameters<typeof GraphWidget>[0]> = {},
) => new GraphWidget({ title, left, width: WIDTH, height: HEIGHT, period: FIVE_MINUTES, ...extra });

const perFunction = (
  functions: Record<string, IFunction>,
  metric: (fn: IFunction, options: MetricOptions) => IMetric,
) => Object.entries(functions).map(([label, fn]) => metric(fn, { label, period: FIVE_MINUTES }));

export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { stage, functions, metrics: m } = props;
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName });

    this.dashboard.addWidgets(
      new TextWidget({ markdown: '## API (HTTP API, stage $default)', width: 24, height: 1 }),
    );
    this.dashboard.addWidgets(
      graph('Requests', [stage.metricCount({ statistic: 'Sum', label: 'Requests' })]),
      graph('Errors', [
        stage.metricClientError({ statistic: 'Sum', label: '4xx' }),
        stage.metricServerError({ statistic: 'Sum', label: '5xx' }),
      ]),
      graph(
        'Latency (ms)',
        [
          stage.metricLatency({ statistic: 'p50', label: 'p50' }),
          stage.metricLatency({ statistic: 'p99', label: 'p99' }),
        ],
        { leftAnnotations: [{ value: ALARM_THRESHOLDS.apiLatencyP99Ms, label: 'p99 alarm' }] },
      ),
    );

    this.dashboard.addWidgets(new TextWidget({ markdown: '## Functions', width: 24, height: 1 }));
    this.dashboard.addWidgets(
      graph(
        'Errors',
        perFunction(functions, (fn, o) => fn.metricErrors({ ...o, statistic: 'Sum' })),
      ),
      graph(
        'Duration p99 (ms)',
        perFunction(functions, (fn, o) => fn.metricDuration({ ...o, statistic: 'p99' })),
      ),
      graph(
        'Throttles',
        perFunction(functions, (fn, o) => fn.metricThrottles({ ...o, statistic: 'Sum' })),
      ),
    );

    this.dashboard.addWidgets(
      new TextWidget({ markdown: '## Scanner wake-ups, capacity and dead letters', width: 24, height: 1 }),
    );
    const scanner = props.scanner;
    this.dashboard.addWidgets(
      graph(
        'Stream wake-ups: oldest record waiting (ms)',
        [scanner.metric('IteratorAge', { statistic: 'Maximum', label: 'iterator age (max)' })],
        { leftAnnotations: [{ value: ALARM_THRESHOLDS.iteratorAgeMs, label: 'alarm' }] },
      ),
      graph(
        'Scanner concurrency',
        [scanner.metric('ConcurrentExecutions', { statistic: 'Maximum', label: 'concurrent (max)' })],
        {
          leftAnnotations: [
            {
              value: Math.ceil(props.scannerReservation * ALARM_THRESHOLDS.scannerConcurrencyShare),
              label: 'alarm',
            },
            { value: props.scannerReservation, label: 'reserved' },
          ],
        },
      ),
      graph(
        'Dead-letter queues: messages waiting',
        Object.entries(props.deadLetters).map(([name, queue]) =>
          queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', label: name }),
        ),
        { leftAnnotations: [{ value: ALARM_THRESHOLDS.deadLetters, label: 'alarm' }] },
      ),
    );

    this.dashboard.addWidgets(new TextWidget({ markdown: '## Checks and messages', width: 24, height: 1 }));
    this.dashboard.addWidgets(
      graph('Checks', [
        m.metric('checksStarted', { statistic: 'Sum', label: 'started' }),
        m.metric('checksCompleted', { statistic: 'Sum', label: 'completed' }),
        m.metric('checksTimedOut', { statistic: 'Sum', label: 'timed out' }),
      ]),
      graph('Messages classified, by category', [m.search('messagesByCategory', 'Sum')], {
        stacked: true,
      }),
      graph('Messages classified, by provider', [m.search('messagesByProvider', 'Sum')], {
        stacked: true,
      }),
    );
    this.dashboard.addWidgets(
      graph('Detection latency (ms): delivery to result', [
        m.metric('detectionLatency', { statistic: 'p50', label: 'p50' }),
        m.metric('detectionLatency', { statistic: 'p95', label: 'p95' }),
        m.metric('detectionLatency', { statistic: 'Maximum', label: 'max' }),
      ]),
      graph('Active checks', [m.metric('activeChecks', { statistic: 'Maximum', label: 'active checks' })], {
        right: [m.metric('scannerHeartbeat', { statistic: 'Sum', label: 'scanner ticks' })],
      }),
    );

    this.dashboard.addWidgets(
      new TextWidget({ markdown: '## Placement and authentication, by provider', width: 24, height: 1 }),
    );
    this.dashboard.addWidgets(
      graph('Inbox rate by provider (share of received copies)', [m.search('placedInbox', 'Average')], {
        leftYAxis: { min: 0, max: 1 },
      }),
      graph(
        'Spam and other rate by provider',
        [m.search('placedSpam', 'Average'), m.search('placedOther', 'Average')],
        { leftYAxis: { min: 0, max: 1 } },
      ),
      graph(
        "Authentication failures by method (receiving side's own results)",
        [m.search('authFail', 'Sum')],
        { right: [m.search('authPass', 'Sum')] },
      ),
    );

    this.dashboard.addWidgets(...auditWidgets(m));

    this.dashboard.addWidgets(new TextWidget({ markdown: '## Mailboxes (scanner)', width: 24, height: 1 }));
    const alarmLine: HorizontalAnnotation = {
      value: props.imapFailureThreshold,
      label: 'alarm',
    };
    this.dashboard.addWidgets(
      graph(
        'IMAP failures and skipped messages (which account: the table below)',
        [
          m.metric('imapFailures', { statistic: 'Sum', label: 'failed sweeps' }),
          m.metric('messagesSkipped', { statistic: 'Sum', label: 'skipped messages' }),
        ],
        {
          right: [m.metric('consecutiveImapFailures', { statistic: 'Maximum', label: 'consecutive (max)' })],
          rightAnnotations: [alarmLine],
        },
      ),
      graph('Accounts out of new checks', [
        m.metric('unhealthyAccounts', { statistic: 'Maximum', label: 'unhealthy accounts' }),
        m.metric('accountsUnhealthy', { statistic: 'Sum', label: 'turned unhealthy' }),
        m.metric('consentRequired', { statistic: 'Sum', label: 'need OAuth consent' }),
      ]),
      graph('Sweep duration (ms), one account', [
        m.metric('sweepDuration', { statistic: 'p50', label: 'p50' }),
        m.metric('sweepDuration', { statistic: 'p99', label: 'p99' }),
        m.metric('sweepDuration', { statistic: 'Maximum', label: 'max' }),
      ]),
    );
  }

  /** Every alarm's state in one widget, at the foot of the page. */
  showAlarms(alarms: IAlarm[]): void {
    this.dashboard.addWidgets(
      new AlarmStatusWidget({
        title: 'Alarms',
        alarms,
        width: 24,
        height: Math.max(3, Math.ceil(alarms.length / 4) + 1),
      }),
    );
  }
}
