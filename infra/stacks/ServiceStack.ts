// Owns the stateless part: the four functions, the HTTP API, what wakes the scanner, the dashboard and the alarms.
// It gets the table and the secret from DataStack through props and may be destroyed and redeployed at will.
import { Annotations, CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ROUTES, type RouteFunction, routeKeyOf } from '../../shared/http/routes';
import { metricsNamespaceFor, SERVICES } from '../../shared/telemetry/metrics';
import { Calibration } from '../constructs/Calibration';
import { LogQueries } from '../constructs/LogQueries';
import { MonitorRuns } from '../constructs/MonitorRuns';
import { mailboxQueries } from '../constructs/mailboxQueries';
import { monitorWidgets } from '../constructs/monitorWidgets';
import {
  deployBakeFunction,
  deployProbeFunction,
  type OtherDeploy,
  SafeDeploys,
} from '../constructs/SafeDeploys';
import { ALARM_THRESHOLDS, ServiceAlarms } from '../constructs/ServiceAlarms';
import { ServiceApi } from '../constructs/ServiceApi';
import { ServiceDashboard } from '../constructs/ServiceDashboard';
import { type CommonFunctionProps, ServiceFunction, TABLE_ACCESS } from '../constructs/ServiceFunction';
import { serviceMetricsIn } from '../constructs/serviceMetrics';
import { WebhookDelivery } from '../constructs/WebhookDelivery';
import { functionEntry } from '../paths';
import { CALIBRATION_OFF, hasAlarmDestination, NO_ALARM_DESTINATION, type Settings } from '../settings';
import { addScanner } from './scannerParts';

export interface ServiceStackProps extends StackProps {
  /** From DataStack; must have a stream (it wakes the scanner). */
  table: ITable;
  /** From DataStack: the mailbox credentials, read by the scanner only. */
  credentials: ISecret;
  /** From DataStack: seals credential items, webhook secrets, monitor messages; the API's roles get none of it. */
  sealingKey: IKey;
  settings: Settings;
}

/** The id of the synth warning printed when the alarms have no destination (NO_ALARM_DESTINATION). */
const NO_ALARM_DESTINATION_WARNING = 'inbox-placement:noAlarmDestination';

const LATEST_RUNTIME_REASON =
  'nodejs22.x is the runtime the service is built (esbuild target node22) and tested for; moving to a newer ' +
  'Node.js is a deliberate upgrade with its own test run, not something a deploy should do silently.';

/** The service's alarms (ServiceAlarms ids) that also roll back a deployment in progress. */
const API_ROLLBACK_ALARMS = new Set(['ApiFunctionErrors', 'ApiLatency', 'Api5xx']);
const SCANNER_ROLLBACK_ALARMS = new Set(['ScannerErrors']);

const routesServedBy = (fn: RouteFunction): string =>
  ROUTES.filter((route) => route.function === fn)
    .map(routeKeyOf)
    .join(', ');

export class ServiceStack extends Stack {
  readonly scanner: ServiceFunction;
  /** Failed asynchronous scanner invocations and stream batches, with the event and the error. */
  readonly scannerDeadLetters: Queue;
  readonly functions: Record<'start' | 'get' | 'fallback' | 'scanner', ServiceFunction>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { table, credentials, sealingKey, settings } = props;
    const namespace = metricsNamespaceFor(settings.stage);
    const metrics = serviceMetricsIn(namespace);
    const common: CommonFunctionProps = {
      logRetention: settings.logRetentionDays,
      logLevel: settings.logLevel,
      tracing: settings.tracing,
      metricsNamespace: namespace,
    };

    const start = new ServiceFunction(this, 'Start', {
      ...common,
      entry: functionEntry('start'),
      service: SERVICES.api,
      description: routesServedBy('start'),
      environment: {
        START_RATE_LIMIT_PER_MINUTE: String(settings.startRateLimitPerMinute),
        MAX_CHECKS_IN_FLIGHT_PER_KEY: String(settings.maxChecksInFlightPerKey),
        MAX_CHECKS_IN_FLIGHT_PER_SCOPE: String(settings.maxChecksInFlightPerScope),
      },
    }).bindTable(table, TABLE_ACCESS.start);
    const get = new ServiceFunction(this, 'Get', {
      ...common,
      entry: functionEntry('get'),
      service: SERVICES.api,
      description: routesServedBy('get'),
      environment: {
        READ_RATE_LIMIT_PER_SECOND: String(settings.readRateLimitPerSecond),
        READ_BURST_PER_KEY: String(settings.readBurstPerKey),
      },
    }).bindTable(table, TABLE_ACCESS.get);
    const fallback = new ServiceFunction(this, 'Fallback', {
      ...common,
      entry: functionEntry('fallback'),
      service: SERVICES.api,
      description: 'Unknown paths and wrong methods: JSON 404 and 405',
    }).bindTable(table, TABLE_ACCESS.none);

    const scannerParts = addScanner(this, { table, credentials, sealingKey, settings, common });
    this.scanner = scannerParts.scanner;
    this.scannerDeadLetters = scannerParts.deadLetters;
    // Every caller invokes the live aliases, so a new version takes traffic only as CodeDeploy shifts it (SafeDeploys).
    const live = {
      start: start.live(),
      get: get.live(),
      fallback: fallback.live(),
      scanner: scannerParts.live,
    };

    // Signed webhooks when checks end: their own function, role, retry queue and dead letters.
    const webhooks = new WebhookDelivery(this, 'Webhooks', { table, sealingKey, ...common });
    Validations.of(webhooks.sender).acknowledge({ id: 'AwsSolutions-L1', reason: LATEST_RUNTIME_REASON });
    const functions = { start, get, fallback, scanner: this.scanner };
    this.functions = functions;
    for (const fn of Object.values(functions)) {
      Validations.of(fn).acknowledge({ id: 'AwsSolutions-L1', reason: LATEST_RUNTIME_REASON });
    }

    const api = new ServiceApi(this, 'Http', {
      apiName: settings.stage === undefined ? 'inbox-placement' : `${settings.stage}-inbox-placement`,
      routes: { start: live.start, get: live.get },
      fallback: live.fallback,
      throttle: { rateLimit: settings.throttleRate, burstLimit: settings.throttleBurst },
      routeThrottles: {
        start: { rateLimit: settings.startThrottleRate, burstLimit: settings.startThrottleBurst },
        get: { rateLimit: settings.readThrottleRate, burstLimit: settings.readThrottleBurst },
      },
      logRetention: settings.logRetentionDays,
    });

    const logQueries = new LogQueries(this, 'LogQueries', {
      namePrefix: this.stackName,
      functions: [...Object.values(functions), webhooks.sender],
    });
    // Every dead-letter queue of the stack, each with its own alarm and line on the dashboard.
    const deadLetters = { Scanner: this.scannerDeadLetters, Webhooks: webhooks.deadLetters };
    const dashboard = new ServiceDashboard(this, 'Dashboard', {
      dashboardName: this.stackName,
      metrics,
      stage: api.stage,
      functions,
      imapFailureThreshold: ALARM_THRESHOLDS.imapConsecutiveFailures,
      scanner: this.scanner,
      scannerReservation: settings.scannerConcurrency,
      deadLetters,
    });
    const probe = deployProbeFunction(this, this.scanner.currentVersion, common, settings.uncheckedProbe);
    const bake = deployBakeFunction(this, this.scanner.currentVersion, common);
    for (const hook of [probe, bake])
      Validations.of(hook).acknowledge({ id: 'AwsSolutions-L1', reason: LATEST_RUNTIME_REASON });
    const alarms = new ServiceAlarms(this, 'Alarms', {
      otherFunctions: { WebhookSender: webhooks.sender, DeployProbe: probe, DeployBake: bake },
      webhooks,
      namePrefix: this.stackName,
      metrics,
      scanner: this.scanner,
      api: [start, get, fallback],
      scannerReservation: settings.scannerConcurrency,
      deadLetters,
      table,
      stage: api.stage,
      alarmEmail: settings.alarmEmail,
      alarmTopicArn: settings.alarmTopicArn,
    });
    dashboard.showAlarms(alarms.alarms);
    // The control message to every seed on a schedule, with its own function and role; off unless configured.
    const others: OtherDeploy[] = [
      {
        id: webhooks.sender.node.id,
        alias: webhooks.live,
        alarms: alarms.alarms.filter((alarm) => alarm.node.id === 'WebhookSenderErrors'),
        shift: 'canary',
      },
    ];
    if (settings.calibrationEveryMs !== undefined && settings.controlFrom !== undefined) {
      const calibration = new Calibration(this, 'Calibration', {
        table,
        everyMs: settings.calibrationEveryMs,
        controlFrom: settings.controlFrom,
        inboxThreshold: settings.controlInboxAlarmThreshold,
        common,
        namePrefix: this.stackName,
        metrics,
        dashboard: dashboard.dashboard,
        alarmTopic: alarms.topic,
        runtimeReason: LATEST_RUNTIME_REASON,
      });
      others.push({
        id: 'Calibration',
        alias: calibration.live,
        alarms: calibration.rollbackAlarms,
        shift: 'allAtOnce',
      });
    } else Annotations.of(this).addInfo(CALIBRATION_OFF);
    dashboard.dashboard.addWidgets(...webhooks.widgets());
    dashboard.dashboard.addWidgets(...monitorWidgets(metrics));
    dashboard.dashboard.addWidgets(mailboxQueries(this, this.stackName, this.scanner.logGroup));
    // Every due monitor on a schedule, with its alarms; with no monitor created, each run is one Query.
    const monitors = {
      table,
      sealingKey,
      common,
      alarms,
      logQueries,
      metrics,
      reason: LATEST_RUNTIME_REASON,
    };
    new MonitorRuns(this, 'Monitors', { ...monitors, deadLetters: this.scannerDeadLetters });
    new SafeDeploys(this, 'Deploys', {
      namePrefix: this.stackName,
      api: (['start', 'get', 'fallback'] as const).map((name) => ({
        id: live[name].lambda.node.id,
        alias: live[name],
      })),
      apiAlarms: alarms.alarms.filter((alarm) => API_ROLLBACK_ALARMS.has(alarm.node.id)),
      scanner: { id: this.scanner.node.id, alias: live.scanner },
      scannerAlarms: alarms.alarms.filter((alarm) => SCANNER_ROLLBACK_ALARMS.has(alarm.node.id)),
      probe,
      bake,
      others,
    });
    // One warning line in `cdk synth` output; `npm run deploy` (cdk deploy --strict) refuses to deploy with it.
    if (!hasAlarmDestination(settings)) {
      Annotations.of(this).addWarningV2(NO_ALARM_DESTINATION_WARNING, NO_ALARM_DESTINATION);
    }

    new CfnOutput(this, 'ApiUrl', { value: api.stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'ScannerFunctionName', {
      value: this.scanner.functionName,
      description: 'The scanner Lambda, to invoke or tail by hand',
    });
  }
}
