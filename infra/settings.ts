// Owns the deploy-time settings read from CDK context (cdk.json or `-c key=value`): validated once, failing at synth
// with a message naming the key and the value it got.
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DEFAULT_SCAN_INTERVAL_MS, DEFAULT_SCAN_PATIENCE_MS } from '../shared/config';
import { DEFAULT_KEY_LIMITS, MAX_IN_FLIGHT_CAP } from '../shared/domain/keyLimits';
import { ACTIVE_MS } from '../shared/domain/limits';
import { DEFAULT_READ_LIMITS, MAX_READ_RATE } from '../shared/domain/readLimits';
import { DEFAULT_REPORT_RETENTION_DAYS, MAX_REPORT_RETENTION_DAYS } from '../shared/domain/reportArchive';
import { maxAccountsPerShard, shardSizeProblem } from '../shared/domain/shardBudget';
import { isStageName, STAGE_RULE } from '../shared/domain/stages';
import { layoutFor, reservationProblem } from '../shared/scanner/scannerCapacity';
import {
  DEFAULT_UNCHECKED_PROBE,
  UNCHECKED_PROBE_CHOICES,
  type UncheckedProbe,
} from '../shared/settings/deployHooks';
import { calibrationSettings } from './calibrationSettings';
import { DEFAULT_SCANNER_MEMORY_MB } from './scannerMemory';
import {
  EMAIL,
  fail,
  integerIn,
  numberOf,
  optionalMatching,
  positiveNumber,
  type ReadContext,
} from './settingsReaders';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Settings {
  /** Days every log group of the service keeps its logs; one of CloudWatch's allowed retention periods. */
  logRetentionDays: RetentionDays;
  /** How often the scanner sweeps while a check is active (the scanner's SCAN_INTERVAL_MS). */
  scanIntervalMs: number;
  /** Accounts one scanner invocation sweeps; more accounts run as concurrent invocations (SCAN_SHARD_SIZE). */
  scanShardSize: number;
  /** How long a loop holds a check's accounts after its start or last copy (the scanner's SCAN_PATIENCE_MS). */
  scanPatienceMs: number;
  /** Days each ended check's report is archived for history and compare (the scanner's REPORT_RETENTION_DAYS). */
  reportRetentionDays: number;
  /** API steady-state requests per second, for the whole stage. */
  throttleRate: number;
  /** API burst of requests above the rate. */
  throttleBurst: number;
  /** Steady-state requests per second of the start route alone, for every caller together. */
  startThrottleRate: number;
  startThrottleBurst: number;
  /** The same for the get route, and (a limit of its own, the same size) for the report route. */
  readThrottleRate: number;
  readThrottleBurst: number;
  /** Subscribed (by email) to the service's alarm topic. */
  alarmEmail: string | undefined;
  /** An existing SNS topic every alarm notifies as well (a pager, a chat bridge, a shared ops topic). */
  alarmTopicArn: string | undefined;
  /** Mailboxes the deploy plans for (`-c mailboxes=N`): the shard count, and so the scanner's reservation, follow. */
  mailboxes: number;
  /** Shards `mailboxes` take at `scanShardSize` (shared/scanner/shards.ts). */
  plannedShards: number;
  /**
   * Reserved concurrency of the scanner: the ceiling on its self-invocations and shards. Defaults to what the
   * planned shards need (shared/scanner/scannerCapacity.ts); a smaller one that cannot hold them fails synth.
   */
  scannerConcurrency: number;
  /** Memory of the scanner function, in MB: a shard's measured peak with headroom (docs/operating.md). */
  scannerMemoryMb: number;
  /** LOG_LEVEL of every function. */
  logLevel: LogLevel;
  /** Checks one API key may start per minute (START_RATE_LIMIT_PER_MINUTE); 0 turns the limit off. */
  startRateLimitPerMinute: number;
  /** Checks of one API key in flight at once (MAX_CHECKS_IN_FLIGHT_PER_KEY); 0 turns the cap off. */
  maxChecksInFlightPerKey: number;
  /** Checks of one scope, over all of its keys, in flight at once (MAX_CHECKS_IN_FLIGHT_PER_SCOPE); 0: no ceiling. */
  maxChecksInFlightPerScope: number;
  /** Gets and reports per API key per second in each get function instance (READ_RATE_LIMIT_PER_SECOND); 0: none. */
  readRateLimitPerSecond: number;
  /** Reads per API key at once above that rate (READ_BURST_PER_KEY). */
  readBurstPerKey: number;
  /** Prefix of every stack and physical name, so stages share an account; none keeps the unprefixed names. */
  stage: string | undefined;
  /** X-Ray active tracing on the functions, and POWERTOOLS_TRACE_ENABLED (an HTTP API stage cannot trace). */
  tracing: boolean;
  /** How often the calibration runs, in ms (`-c calibrationEvery=6h`); undefined: no calibration is deployed. */
  calibrationEveryMs: number | undefined;
  /** The control message's From: a domain the operator controls, signed by their ESP (`-c controlFrom=`). */
  controlFrom: string | undefined;
  /** A provider's control inbox rate (0 to 1) under which the calibration's alarm fires. */
  controlInboxAlarmThreshold: number;
  /** Whether a scanner deploy probe with no account to sweep (not checked) lets the deployment proceed or blocks it. */
  uncheckedProbe: UncheckedProbe;
}

/** The mailboxes a deploy plans for unless `-c mailboxes=N` says otherwise. */
const DEFAULT_MAILBOXES = 500;

export const DEFAULT_SETTINGS = {
  logRetentionDays: RetentionDays.ONE_MONTH,
  scanIntervalMs: DEFAULT_SCAN_INTERVAL_MS,
  scanPatienceMs: DEFAULT_SCAN_PATIENCE_MS,
  reportRetentionDays: DEFAULT_REPORT_RETENTION_DAYS,
  // As many accounts as the scanner's memory and Lambda's descriptors allow a shard (shared/domain/shardBudget.ts).
  scanShardSize: maxAccountsPerShard(DEFAULT_SCANNER_MEMORY_MB),
  throttleRate: 50,
  throttleBurst: 100,
  // Ten keys starting at their full per-key rate (one a second) at once.
  startThrottleRate: 10,
  startThrottleBurst: 20,
  // Five keys reading at their full per-key rate at once: 500 checks polled every 5 s.
  readThrottleRate: 5 * DEFAULT_READ_LIMITS.perSecond,
  readThrottleBurst: 5 * DEFAULT_READ_LIMITS.burst,
  logLevel: 'info',
  startRateLimitPerMinute: DEFAULT_KEY_LIMITS.startsPerMinute,
  maxChecksInFlightPerKey: DEFAULT_KEY_LIMITS.maxInFlight,
  maxChecksInFlightPerScope: DEFAULT_KEY_LIMITS.maxInFlightPerScope,
  readRateLimitPerSecond: DEFAULT_READ_LIMITS.perSecond,
  readBurstPerKey: DEFAULT_READ_LIMITS.burst,
  // A planning figure, not a limit: `accounts add` refuses past what the deployed reservation holds.
  mailboxes: DEFAULT_MAILBOXES,
  scannerConcurrency: layoutFor(DEFAULT_MAILBOXES, maxAccountsPerShard(DEFAULT_SCANNER_MEMORY_MB)).needed,
  scannerMemoryMb: DEFAULT_SCANNER_MEMORY_MB,
  tracing: false,
  // The control is a known-good message: a provider that takes fewer than this share of it into the inbox has seeds
  // or a sending path worth a look, whatever the checks say.
  controlInboxAlarmThreshold: 0.8,
  // A stage with no healthy account yet (or none at all) can still deploy, a fix included; the bake still watches it.
  uncheckedProbe: DEFAULT_UNCHECKED_PROBE,
} as const satisfies Omit<
  Settings,
  'alarmEmail' | 'alarmTopicArn' | 'stage' | 'calibrationEveryMs' | 'controlFrom' | 'plannedShards'
>;

/** The most mailboxes synth plans for: their shards' reservation stays within the setting's bound of 1,000. */
const MAX_MAILBOXES = 50_000;

/** The one line synth prints while no calibration is configured. */
export const CALIBRATION_OFF =
  'Calibration is off: pass -c calibrationEvery=6h -c controlFrom=control@your-domain.example to run a control ' +
  'message to every seed on that schedule (docs/operating.md, "Calibration").';

/** The one line synth prints when no alarm destination is set; the alarms then notify a topic nobody reads. */
export const NO_ALARM_DESTINATION =
  'No alarm destination: the alarms notify an SNS topic nobody subscribes to. Pass -c alarmEmail=you@example.com ' +
  'or -c alarmTopicArn=arn:aws:sns:<region>:<account>:<topic>.';

/** True when the alarms reach someone: an email subscription or an existing topic. */
export const hasAlarmDestination = (settings: Pick<Settings, 'alarmEmail' | 'alarmTopicArn'>): boolean =>
  settings.alarmEmail !== undefined || settings.alarmTopicArn !== undefined;

export { SettingsError } from './settingsReaders';

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
const RETENTION_DAYS = new Set<number>(
  Object.values(RetentionDays).filter((value): value is number => typeof value === 'number'),
);

const retentionDays = (read: ReadContext): RetentionDays => {
  const key = 'logRetentionDays';
  const value = read(key);
  if (value === undefined) return DEFAULT_SETTINGS.logRetentionDays;
  const expected = `one of CloudWatch's retention periods (${[...RETENTION_DAYS].sort((a, b) => a - b).join(', ')})`;
  const parsed = numberOf(key, value, expected);
  return RETENTION_DAYS.has(parsed) ? (parsed as RetentionDays) : fail(key, value, expected);
};

const alarmEmail = optionalMatching('alarmEmail', EMAIL, 'an email address');

/** arn:<partition>:sns:<region>:<12-digit account>:<topic name>; a FIFO topic cannot take alarm notifications. */
const SNS_TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;

const alarmTopicArn = optionalMatching(
  'alarmTopicArn',
  SNS_TOPIC_ARN,
  'an SNS topic ARN (arn:aws:sns:<region>:<account>:<name>)',
);

const stage = optionalMatching('stage', { test: isStageName }, STAGE_RULE);

/** `-c tracing=true` arrives as a string, cdk.json's `"tracing": true` as a boolean. */
const tracing = (read: ReadContext): boolean => {
  const value = read('tracing');
  if (value === undefined) return DEFAULT_SETTINGS.tracing;
  if (value === true || value === 'true') return true;
  return value === false || value === 'false' ? false : fail('tracing', value, 'true or false');
};

const uncheckedProbe = (read: ReadContext): UncheckedProbe => {
  const value = read('uncheckedProbe');
  if (value === undefined) return DEFAULT_SETTINGS.uncheckedProbe;
  return (
    UNCHECKED_PROBE_CHOICES.find((choice) => choice === value) ??
    fail('uncheckedProbe', value, UNCHECKED_PROBE_CHOICES.join(' | '))
  );
};

const logLevel = (read: ReadContext): LogLevel => {
  const value = read('logLevel');
  if (value === undefined) return DEFAULT_SETTINGS.logLevel;
  return LOG_LEVELS.find((level) => level === value) ?? fail('logLevel', value, LOG_LEVELS.join(' | '));
};

/**
 * The scanner's memory (Lambda's own bounds) and its shard size: by default as many accounts as that memory and
 * Lambda's descriptors allow one shard, and never more, so synth refuses what SCAN_SHARD_SIZE's check would.
 */
const scannerSize = (read: ReadContext) => {
  const scannerMemoryMb = integerIn(read, 'scannerMemoryMb', DEFAULT_SETTINGS.scannerMemoryMb, 128, 10_240);
  const bound = maxAccountsPerShard(scannerMemoryMb);
  const scanShardSize = integerIn(read, 'scanShardSize', bound, 1, 1000);
  const problem = shardSizeProblem(scanShardSize, scannerMemoryMb);
  if (problem) fail('scanShardSize', read('scanShardSize'), `at most ${bound} (${problem})`);
  return { scannerMemoryMb, scanShardSize };
};

/**
 * The planned mailboxes, their shards and the scanner's reservation: by default what those shards need, and a
 * reservation given that cannot hold them refused with the numbers (the same rule as `accounts add`).
 */
const scannerCapacity = (read: ReadContext, shardSize: number) => {
  const mailboxes = integerIn(read, 'mailboxes', DEFAULT_SETTINGS.mailboxes, 1, MAX_MAILBOXES);
  const layout = layoutFor(mailboxes, shardSize);
  // At least 2: a loop's hand-over overlaps its successor's start for a moment.
  const scannerConcurrency = integerIn(read, 'scannerConcurrency', layout.needed, 2, 1000);
  const problem = reservationProblem(mailboxes, shardSize, scannerConcurrency);
  if (problem)
    fail('scannerConcurrency', read('scannerConcurrency'), `at least ${layout.needed} (${problem})`);
  return { mailboxes, plannedShards: layout.shards, scannerConcurrency };
};

const scanner = (read: ReadContext) => {
  const size = scannerSize(read);
  return { ...size, ...scannerCapacity(read, size.scanShardSize) };
};

/** Reads every setting through `read` (the app's `node.tryGetContext`), so a bad value stops synth before any stack. */
export const readSettings = (read: ReadContext): Settings => ({
  logRetentionDays: retentionDays(read),
  // The same bounds as SCAN_INTERVAL_MS in shared/config.ts, so a value the scanner would refuse fails here first.
  scanIntervalMs: integerIn(read, 'scanIntervalMs', DEFAULT_SETTINGS.scanIntervalMs, 250, 60_000),
  scanPatienceMs: integerIn(read, 'scanPatienceMs', DEFAULT_SETTINGS.scanPatienceMs, 0, ACTIVE_MS),
  reportRetentionDays: integerIn(
    read,
    'reportRetentionDays',
    DEFAULT_SETTINGS.reportRetentionDays,
    0,
    MAX_REPORT_RETENTION_DAYS,
  ),
  ...scanner(read),
  throttleRate: positiveNumber(read, 'throttleRate', DEFAULT_SETTINGS.throttleRate),
  throttleBurst: integerIn(read, 'throttleBurst', DEFAULT_SETTINGS.throttleBurst, 1, 5000),
  startThrottleRate: positiveNumber(read, 'startThrottleRate', DEFAULT_SETTINGS.startThrottleRate),
  startThrottleBurst: integerIn(read, 'startThrottleBurst', DEFAULT_SETTINGS.startThrottleBurst, 1, 5000),
  readThrottleRate: positiveNumber(read, 'readThrottleRate', DEFAULT_SETTINGS.readThrottleRate),
  readThrottleBurst: integerIn(read, 'readThrottleBurst', DEFAULT_SETTINGS.readThrottleBurst, 1, 5000),
  alarmEmail: alarmEmail(read),
  alarmTopicArn: alarmTopicArn(read),
  logLevel: logLevel(read),
  // The same bounds as in shared/config.ts, so a value the API would refuse fails at synth.
  startRateLimitPerMinute: integerIn(
    read,
    'startRateLimitPerMinute',
    DEFAULT_SETTINGS.startRateLimitPerMinute,
    0,
    1_000_000,
  ),
  maxChecksInFlightPerKey: integerIn(
    read,
    'maxChecksInFlightPerKey',
    DEFAULT_SETTINGS.maxChecksInFlightPerKey,
    0,
    MAX_IN_FLIGHT_CAP,
  ),
  maxChecksInFlightPerScope: integerIn(
    read,
    'maxChecksInFlightPerScope',
    DEFAULT_SETTINGS.maxChecksInFlightPerScope,
    0,
    MAX_IN_FLIGHT_CAP,
  ),
  readRateLimitPerSecond: integerIn(
    read,
    'readRateLimitPerSecond',
    DEFAULT_SETTINGS.readRateLimitPerSecond,
    0,
    MAX_READ_RATE,
  ),
  readBurstPerKey: integerIn(read, 'readBurstPerKey', DEFAULT_SETTINGS.readBurstPerKey, 1, MAX_READ_RATE),
  stage: stage(read),
  tracing: tracing(read),
  uncheckedProbe: uncheckedProbe(read),
  ...calibrationSettings(read, DEFAULT_SETTINGS.controlInboxAlarmThreshold),
});
