// Owns the scanner's resources in the service stack: its function, dead-letter queue, live alias, the table stream
// that wakes it and the minute schedule. Built with the stack as scope, so their logical IDs are the stack's own.
import { Duration, type Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { type Alias, FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { checkKey } from '../../shared/adapters/dynamo/keys';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { DEADLINE_MARGIN_MS, SCAN_SCHEDULE_MS } from '../../shared/scanner/scanLoop';
import { SERVICES } from '../../shared/telemetry/metrics';
import { type CommonFunctionProps, ServiceFunction, TABLE_ACCESS } from '../constructs/ServiceFunction';
import { SCANNER_RECURSIVE_LOOP, WAKE_UP_BATCHES } from '../constructs/scannerWakeUp';
import { functionEntry } from '../paths';
import type { Settings } from '../settings';

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

export interface ScannerProps {
  table: ITable;
  credentials: ISecret;
  sealingKey: IKey;
  settings: Settings;
  common: CommonFunctionProps;
}

export const addScanner = (
  stack: Stack,
  { table, credentials, sealingKey, settings, common }: ScannerProps,
) => {
  // Every asynchronous invocation (schedule, hand-over, shard fan-out) that fails, or ages out throttled, lands
  // here with its event and error, so a dropped hand-over leaves a trace and raises ScannerDeadLetters.
  const deadLetters = new Queue(stack, 'ScannerDeadLetters', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(deadLetters).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      'This queue is itself the dead-letter queue (the on-failure destination of the scanner and of its stream ' +
      "mapping); cdk-nag only recognises queues named in another queue's redrive policy.",
  });
  const scanner = new ServiceFunction(stack, 'Scanner', {
    ...common,
    entry: functionEntry('scan'),
    service: SERVICES.scan,
    description: 'Sweeps the test mailboxes while a check is active',
    // Named, so its own ARN can be written into its policy without a dependency cycle (see grantInvokeSelf).
    functionName: `${stack.stackName}-scanner`,
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
    // LambdaThrottles, and its events age out into the dead-letter queue. It defaults to room for every planned
    // shard's loop, hand-over and minute kick (shared/scanner/scannerCapacity.ts); synth refuses less.
    reservedConcurrentExecutions: settings.scannerConcurrency,
    // Its hand-over is a self-invoke every few minutes while checks arrive: never cut as a runaway loop.
    recursiveLoop: SCANNER_RECURSIVE_LOOP,
    // A failed run is not retried: the minute schedule is the retry, and a retry would only race for the lease.
    retryAttempts: 0,
    maxEventAge: SCANNER_MAX_EVENT_AGE,
    onFailure: new SqsDestination(deadLetters),
  })
    .bindTable(table, TABLE_ACCESS.scanner)
    .bindSecret(credentials)
    // Opens every account's credentials; re-seals only an OAuth account's, whose refresh token a provider rotates.
    .bindSealingKey(sealingKey, { open: ['credentials', 'oauth-credentials'], seal: ['oauth-credentials'] })
    .grantInvokeSelf();

  // The scanner's alias carries the same asynchronous settings as the function: the schedule invokes it.
  const live = scanner.live({
    retryAttempts: 0,
    maxEventAge: SCANNER_MAX_EVENT_AGE,
    onFailure: new SqsDestination(deadLetters),
  });

  wakeScanner(stack, live, table, deadLetters);
  return { scanner, deadLetters, live };
};

/** What starts the scanner's loops: a new check's INSERT on the table's stream, and the minute schedule. */
const wakeScanner = (stack: Stack, live: Alias, table: ITable, deadLetters: Queue): void => {
  // A new check wakes the scanner at once through the table's stream, so start needs no permission to invoke it.
  // Only the INSERT of a check item passes the filter; the handler treats any event with Records as a new check.
  live.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: StartingPosition.LATEST,
      ...WAKE_UP_BATCHES,
      onFailure: new SqsDlq(deadLetters),
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.isEqual('INSERT'),
          dynamodb: { Keys: { [TABLE_SCHEMA.sortKey]: { S: FilterRule.isEqual(checkKey('').sk) } } },
        }),
      ],
    }),
  );
  // DynamoEventSource grants dynamodb:ListStreams on "*" to the scanner's role; every other statement names a resource.
  const scannerPolicy = live.lambda.role?.node.tryFindChild('DefaultPolicy');
  if (!scannerPolicy) throw new Error('the scanner role has no DefaultPolicy to acknowledge');
  Validations.of(scannerPolicy).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Only dynamodb:ListStreams, which the stream event source needs and which supports no resource-level ' +
      'permission (IAM allows only "*"); the stream reads themselves are limited to the table\'s stream ARN.',
  });
  // And every minute, for checks whose wake-up was lost and for the loop's hand-over failing.
  new Rule(stack, 'ScanSchedule', {
    description: 'Runs the scanner every minute',
    schedule: Schedule.rate(Duration.millis(SCAN_SCHEDULE_MS)),
    // An event EventBridge could not hand to Lambda at all goes to the same dead-letter queue.
    targets: [new LambdaFunction(live, { retryAttempts: 0, deadLetterQueue: deadLetters })],
  });
};
