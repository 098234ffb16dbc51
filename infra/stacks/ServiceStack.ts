// Owns the stateless part: the four functions, the HTTP API, what wakes the scanner, the dashboard and the alarms.
// It gets the table and the secret from DataStack through props and may be destroyed and redeployed at will.
import { Annotations, CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { checkKey } from '../../shared/adapters/dynamo/keys';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { ROUTES, type RouteFunction, routeKeyOf } from '../../shared/http/routes';
import { DEADLINE_MARGIN_MS, SCAN_SCHEDULE_MS } from '../../shared/scanner/scanLoop';
import { SERVICES } from '../../shared/telemetry/metrics';
import { Calibration } from '../constructs/Calibration';
import { LogQueries } from '../constructs/LogQueries';
import { MonitorRuns } from '../constructs/MonitorRuns';
import { monitorWidgets } from '../constructs/monitorWidgets';
import { deployProbeFunction, SafeDeploys } from '../constructs/SafeDeploys';
import { ALARM_THRESHOLDS, ServiceAlarms } from '../constructs/ServiceAlarms';
import { ServiceApi } from '../constructs/ServiceApi';
import { ServiceDashboard } from '../constructs/ServiceDashboard';
import { ServiceFunction, TABLE_ACCESS } from '../constructs/ServiceFunction';
import { SCANNER_RECURSIVE_LOOP, WAKE_UP_BATCHES } from '../constructs/scannerWakeUp';
import { WebhookDelivery } from '../constructs/WebhookDelivery';
import { functionEntry } from '../paths';
import { CALIBRATION_OFF, hasAlarmDestination, NO_ALARM_DESTINATION, type Settings } from '../settings';

export interface ServiceStackProps extends StackProps {
  /** From DataStack; must have a stream (it wakes the scanner). */
  table: ITable;
  /** From DataStack: the mailbox credentials, read by the scanner only. */
  credentials: ISecret;
  settings: Settings;
}

/**
 * The scanner stops its loop DEADLINE_MARGIN_MS (20 s) before its deadline to finish a sweep and log out;
 * 5 minutes leaves it 4 min 40 s of sweeping per invocation before it hands over to the next.
 */
const SCANNER_TIMEOUT = Duration.minutes(5);
if (SCANNER_TIMEOUT.toMilliseconds() <= DEADLINE_MARGIN_MS * 2) {
  throw new Error('the scanner timeout must leave room for the loop beyond its deadline margin');
}

/**
 * How long Lambda keeps trying an asynchronous scanner invocation it could not run (throttled at the reserved
 * concurrency) before sending it to the dead-letter queue. The minute schedule covers the same work anyway, so an
 * older hand-over or shard event is worth nothing; keeping it short stops a backlog from piling up behind a ceiling.
 */
const SCANNER_MAX_EVENT_AGE = Duration.minutes(5);

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
    const { table, credentials, settings } = props;
    const common = {
      logRetention: settings.logRetentionDays,
      logLevel: settings.logLevel,
      tracing: settings.tracing,
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

    // Every asynchronous invocation (schedule, hand-over, shard fan-out) that fails, or ages out throttled, lands
    // here with its event and error, so a dropped hand-over leaves a trace and raises ScannerDeadLetters.
    this.scannerDeadLetters = new Queue(this, 'ScannerDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.scannerDeadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter queue (the on-failure destination of the scanner and of its stream ' +
        "mapping); cdk-nag only recognises queues named in another queue's redrive policy.",
    });
    this.scanner = new ServiceFunction(this, 'Scanner', {
      ...common,
      entry: functionEntry('scan'),
      service: SERVICES.scan,
      description: 'Sweeps the test mailboxes while a check is active',
      // Named, so its own ARN can be written into its policy without a dependency cycle (see grantInvokeSelf).
      functionName: `${this.stackName}-scanner`,
      timeout: SCANNER_TIMEOUT,
      memorySize: settings.scannerMemoryMb,
      environment: {
        SCAN_INTERVAL_MS: String(settings.scanIntervalMs),
        SCAN_PATIENCE_MS: String(settings.scanPatienceMs),
        REPORT_RETENTION_DAYS: String(settings.reportRetentionDays),
        SCAN_SHARD_SIZE: String(settings.scanShardSize),
      },
      // Overlapping loops of one shard are prevented by the lease item in the table (a conditional write renewed
      // every sweep): an invocation that cannot take it returns at once. The reserved concurrency is the cost
      // ceiling on top: a bug that invokes the scanner in a loop (hand-over, shards) is throttled there, raises
      // LambdaThrottles, and its events age out into the dead-letter queue. It needs room for every shard plus the
      // moment a loop's hand-over overlaps its successor, and the account must keep 100 unreserved.
      reservedConcurrentExecutions: settings.scannerConcurrency,
      // Its hand-over is a self-invoke every few minutes while checks arrive: never cut as a runaway loop.
      recursiveLoop: SCANNER_RECURSIVE_LOOP,
      // A failed run is not retried: the minute schedule is the retry, and a retry would only race for the lease.
      retryAttempts: 0,
      maxEventAge: SCANNER_MAX_EVENT_AGE,
      onFailure: new SqsDestination(this.scannerDeadLetters),
    })
      .bindTable(table, TABLE_ACCESS.scanner)
      .bindSecret(credentials)
      .grantInvokeSelf();

    // Every caller invokes the live aliases, so a new version takes traffic only as CodeDeploy shifts it (SafeDeploys).
    // The scanner's alias carries the same asynchronous settings as the function: the schedule invokes it.
    const live = {
      start: start.live(),
      get: get.live(),
      fallback: fallback.live(),
      scanner: this.scanner.live({
        retryAttempts: 0,
        maxEventAge: SCANNER_MAX_EVENT_AGE,
        onFailure: new SqsDestination(this.scannerDeadLetters),
      }),
    };

    // A new check wakes the scanner at once through the table's stream, so start needs no permission to invoke it.
    // Only the INSERT of a check item passes the filter; the handler treats any event with Records as a new check.
    live.scanner.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.LATEST,
        ...WAKE_UP_BATCHES,
        onFailure: new SqsDlq(this.scannerDeadLetters),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { Keys: { [TABLE_SCHEMA.sortKey]: { S: FilterRule.isEqual(checkKey('').sk) } } },
          }),
        ],
      }),
    );
    // DynamoEventSource grants dynamodb:ListStreams on "*" to the scanner's role; every other statement names a resource.
    const scannerPolicy = this.scanner.role?.node.tryFindChild('DefaultPolicy');
    if (!scannerPolicy) throw new Error('the scanner role has no DefaultPolicy to acknowledge');
    Validations.of(scannerPolicy).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Only dynamodb:ListStreams, which the stream event source needs and which supports no resource-level ' +
        'permission (IAM allows only "*"); the stream reads themselves are limited to the table\'s stream ARN.',
    });
    // And every minute, for checks whose wake-up was lost and for the loop's hand-over failing.
    new Rule(this, 'ScanSchedule', {
      description: 'Runs the scanner every minute',
      schedule: Schedule.rate(Duration.millis(SCAN_SCHEDULE_MS)),
      // An event EventBridge could not hand to Lambda at all goes to the same dead-letter queue.
      targets: [
        new LambdaFunction(live.scanner, { retryAttempts: 0, deadLetterQueue: this.scannerDeadLetters }),
      ],
    });

    // Signed webhooks when checks end: their own function, role, retry queue and dead letters.
    const webhooks = new WebhookDelivery(this, 'Webhooks', { table, ...common });
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
      stage: api.stage,
      functions,
      imapFailureThreshold: ALARM_THRESHOLDS.imapConsecutiveFailures,
      scanner: this.scanner,
      scannerReservation: settings.scannerConcurrency,
      deadLetters,
    });
    const alarms = new ServiceAlarms(this, 'Alarms', {
      namePrefix: this.stackName,
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
    if (settings.calibrationEveryMs !== undefined && settings.controlFrom !== undefined) {
      new Calibration(this, 'Calibration', {
        table,
        everyMs: settings.calibrationEveryMs,
        controlFrom: settings.controlFrom,
        inboxThreshold: settings.controlInboxAlarmThreshold,
        common,
        namePrefix: this.stackName,
        dashboard: dashboard.dashboard,
        alarmTopic: alarms.topic,
        runtimeReason: LATEST_RUNTIME_REASON,
      });
    } else Annotations.of(this).addInfo(CALIBRATION_OFF);
    dashboard.dashboard.addWidgets(...webhooks.widgets());
    dashboard.dashboard.addWidgets(...monitorWidgets());
    // Every due monitor on a schedule, with its alarms; with no monitor created, each run is one Query.
    const monitors = { table, credentials, common, alarms, logQueries, reason: LATEST_RUNTIME_REASON };
    new MonitorRuns(this, 'Monitors', { ...monitors, deadLetters: this.scannerDeadLetters });
    const probe = deployProbeFunction(this, this.scanner.currentVersion, common);
    Validations.of(probe).acknowledge({ id: 'AwsSolutions-L1', reason: LATEST_RUNTIME_REASON });
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
