// Owns reading configuration from the environment: validated once at load, failing with the variable's name.
// zod's mini build (the same library, functional form): the API functions load this module at init, and the full
// build's methods cost bundle size and CPU at every cold start (BENCHMARKS.md, the cold-start goal).

import * as z from 'zod/mini';
import { CALIBRATION_EVERY_RULE, parseCalibrationEvery } from './calibration/domain';
import { DEFAULT_UNHEALTHY_AFTER } from './domain/account';
import {
  DEFAULT_AUTH_CACHE_TTL_MS,
  DEFAULT_UNKNOWN_KEY_TTL_MS,
  MAX_AUTH_CACHE_TTL_MS,
} from './domain/authCache';
import { DEFAULT_KEY_LIMITS, MAX_IN_FLIGHT_CAP } from './domain/keyLimits';
import { ACTIVE_MS, DEFAULT_TAB_GRACE_MS } from './domain/limits';
import { DEFAULT_READ_LIMITS, MAX_READ_RATE } from './domain/readLimits';
import { DEFAULT_REPORT_RETENTION_DAYS, MAX_REPORT_RETENTION_DAYS } from './domain/reportArchive';
import { shardSizeProblem } from './domain/shardBudget';
import { type AuditSettings, loadAuditSettings } from './settings/auditSettings';
import { logLevel, metricsNamespace, traceEnabled } from './settings/commonSettings';
import { ConfigError, intSetting, nonEmpty, parseEnv } from './settings/envSchema';
import { readTrustedCa } from './settings/trustedCa';

/** The API's own settings, the same wherever it runs (Lambda, npm start). */
const apiSettings = {
  LOG_LEVEL: logLevel,
  POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
  POWERTOOLS_TRACE_ENABLED: traceEnabled,
  /** Set by the Lambda runtime only: switches logs and metrics to Powertools. */
  AWS_LAMBDA_FUNCTION_NAME: z.optional(nonEmpty()),
  /** Checks one API key may start per minute; 0 turns the limit off. */
  START_RATE_LIMIT_PER_MINUTE: intSetting(0, 1_000_000, DEFAULT_KEY_LIMITS.startsPerMinute),
  /** Checks of one API key neither complete nor timed out at once; 0 turns the cap off. */
  MAX_CHECKS_IN_FLIGHT_PER_KEY: intSetting(0, MAX_IN_FLIGHT_CAP, DEFAULT_KEY_LIMITS.maxInFlight),
  /** Checks of one scope, over all of its keys, neither complete nor timed out at once; 0 turns the ceiling off. */
  MAX_CHECKS_IN_FLIGHT_PER_SCOPE: intSetting(0, MAX_IN_FLIGHT_CAP, DEFAULT_KEY_LIMITS.maxInFlightPerScope),
  /** Gets and reports one API key may make per second in one API process; 0 turns the limit off. */
  READ_RATE_LIMIT_PER_SECOND: intSetting(0, MAX_READ_RATE, DEFAULT_READ_LIMITS.perSecond),
  /** Reads one API key may make at once above that rate, after being idle. */
  READ_BURST_PER_KEY: intSetting(1, MAX_READ_RATE, DEFAULT_READ_LIMITS.burst),
  /** How long an API process trusts a key it has read (a revocation takes up to this long); 0 turns it off. */
  AUTH_CACHE_TTL_MS: intSetting(0, MAX_AUTH_CACHE_TTL_MS, DEFAULT_AUTH_CACHE_TTL_MS),
  /** How long an API process remembers a key as unknown (a new key may answer 401 this long); 0 turns it off. */
  UNKNOWN_KEY_CACHE_TTL_MS: intSetting(0, MAX_AUTH_CACHE_TTL_MS, DEFAULT_UNKNOWN_KEY_TTL_MS),
};

const apiEnv = z.object({
  TABLE_NAME: nonEmpty(),
  AWS_REGION: nonEmpty(),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  ...apiSettings,
});

export type ApiConfig = z.infer<typeof apiEnv>;

/** How often a scanner loop sweeps while a check waits: the main term of detection latency (see BENCHMARKS.md). */
export const DEFAULT_SCAN_INTERVAL_MS = 1000;
/**
 * How long after a check's start, or the last copy the scanner placed for it, a loop holds that check's accounts
 * (watches open, a copy read within a second of its announcement); past it the check's accounts are swept once a
 * schedule's minute, so a lone check that never completes keeps no loop billed for its 5 minutes. Copies of one send
 * land close together; half the schedule's minute keeps that check's loop inside the cost goal (docs/scanner.md).
 */
export const DEFAULT_SCAN_PATIENCE_MS = 30_000;
/** Accounts per scanner loop where nothing sets it (npm start, the tests); the stack sets the bound its memory allows. */
export const DEFAULT_SCAN_SHARD_SIZE = 100;

/** How long a Gmail INBOX copy waits for its tab, wherever the scanner runs. */
const tabGrace = intSetting(0, ACTIVE_MS, DEFAULT_TAB_GRACE_MS);
/** Days each ended check's report is kept for history and compare, wherever the scanner runs; 0 keeps none. */
const reportRetention = intSetting(0, MAX_REPORT_RETENTION_DAYS, DEFAULT_REPORT_RETENTION_DAYS);

const scanEnv = z.object({
  TABLE_NAME: nonEmpty(),
  AWS_REGION: nonEmpty(),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  LOG_LEVEL: logLevel,
  POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
  /** The Secrets Manager secret holding `{"accounts": [...]}` with every mailbox's credentials. */
  CREDENTIALS_SECRET_ID: nonEmpty(),
  /** The customer-managed KMS key every credentials item, webhook secret and monitor message is sealed under. */
  SEALING_KEY_ARN: nonEmpty(),
  SCAN_INTERVAL_MS: intSetting(250, 60_000, DEFAULT_SCAN_INTERVAL_MS),
  /** How long a check's accounts are held by a loop after its start or last copy (0: never; the 5 minutes: always). */
  SCAN_PATIENCE_MS: intSetting(0, ACTIVE_MS, DEFAULT_SCAN_PATIENCE_MS),
  /**
   * Accounts one scanner invocation sweeps at most; beyond it the accounts are split across concurrent invocations.
   * At most what the function's memory and Lambda's descriptors allow (shared/domain/shardBudget.ts).
   */
  SCAN_SHARD_SIZE: intSetting(1, 1000, DEFAULT_SCAN_SHARD_SIZE),
  /** Set by the Lambda runtime: the function's memory, which bounds SCAN_SHARD_SIZE. */
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: z.optional(
    z.coerce.number().check(z.int(), z.minimum(128), z.maximum(10_240)),
  ),
  /** Failed sweeps in a row after which an account is left out of new checks until it works again. */
  UNHEALTHY_AFTER_FAILURES: intSetting(1, 1000, DEFAULT_UNHEALTHY_AFTER),
  GMAIL_TAB_GRACE_MS: tabGrace,
  REPORT_RETENTION_DAYS: reportRetention,
  /** Set by the Lambda runtime; the scanner invokes itself to hand over a loop that reaches its deadline. */
  AWS_LAMBDA_FUNCTION_NAME: nonEmpty(),
  POWERTOOLS_TRACE_ENABLED: traceEnabled,
  /** The alias callers invoke (set by the stack): hand-overs and shards go through it, not to $LATEST. */
  LIVE_ALIAS: z.optional(nonEmpty()),
  IMAP_CA_FILE: z.optional(z.string()),
});

export type ScanConfig = z.infer<typeof scanEnv> & {
  /** IMAP_CA_FILE's certificates (PEM), trusted beside Node's roots; undefined when unset. */
  imapTrustedCa: string | undefined;
};

/** The webhook sender function's settings (AWS only: npm start runs the same sending code in-process). */
const webhookEnv = z.object({
  TABLE_NAME: nonEmpty(),
  AWS_REGION: nonEmpty(),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  LOG_LEVEL: logLevel,
  /** The SQS queue deliveries wait on between attempts. */
  WEBHOOK_QUEUE_URL: z.url(),
  /** The customer-managed KMS key every credentials item, webhook secret and monitor message is sealed under. */
  SEALING_KEY_ARN: nonEmpty(),
  POWERTOOLS_TRACE_ENABLED: traceEnabled,
});

export type WebhookConfig = z.infer<typeof webhookEnv>;

export const loadWebhookConfig = (env: NodeJS.ProcessEnv = process.env): WebhookConfig =>
  parseEnv(webhookEnv, env);

/** A shard size above what one shard may hold is refused where the settings are read, not found out at 1,024 sockets. */
const boundedShardSize = <T extends { SCAN_SHARD_SIZE: number }>(settings: T, memoryMb?: number): T => {
  const problem = shardSizeProblem(settings.SCAN_SHARD_SIZE, memoryMb);
  if (problem) throw new ConfigError(`invalid configuration in the environment: SCAN_SHARD_SIZE: ${problem}`);
  return settings;
};

export const loadScanConfig = (env: NodeJS.ProcessEnv = process.env): ScanConfig => {
  const config = parseEnv(scanEnv, env);
  return {
    ...boundedShardSize(config, config.AWS_LAMBDA_FUNCTION_MEMORY_SIZE),
    imapTrustedCa: readTrustedCa(config.IMAP_CA_FILE),
  };
};

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig => parseEnv(apiEnv, env);

/**
 * `npm start`'s settings: where it listens and keeps its data, the API's own settings (its table, region and endpoint
 * are the embedded store's, known only once that runs), and the scanner's.
 */
const localEnv = z.object({
  HOST: z._default(z.string(), '127.0.0.1'),
  PORT: intSetting(0, 65535, 3000),
  DATA_DIR: z._default(z.string(), '.data'),
  LOCAL_CONFIG: z._default(z.string(), 'config/local.json'),
  ...apiSettings,
  SCAN_INTERVAL_MS: intSetting(250, 60_000, DEFAULT_SCAN_INTERVAL_MS),
  SCAN_PATIENCE_MS: intSetting(0, ACTIVE_MS, DEFAULT_SCAN_PATIENCE_MS),
  SCAN_SHARD_SIZE: intSetting(1, 1000, DEFAULT_SCAN_SHARD_SIZE),
  UNHEALTHY_AFTER_FAILURES: intSetting(1, 1000, DEFAULT_UNHEALTHY_AFTER),
  GMAIL_TAB_GRACE_MS: tabGrace,
  REPORT_RETENTION_DAYS: reportRetention,
  /** Webhooks may go to this machine over plain http (127.0.0.0/8, ::1, localhost): for local receivers and tests. */
  WEBHOOK_ALLOW_LOOPBACK_HTTP: z._default(z.enum(['0', '1']), '0'),
  /** Benchmarks only: time each handler call and serve the figures (see createLocalServer). */
  LOCAL_HANDLER_TIMING: z._default(z.enum(['0', '1']), '0'),
  /** How often npm start calibrates by itself, through the CONTROL_* sender; unset or empty: never. */
  CALIBRATION_EVERY: z.optional(z.string()),
  IMAP_CA_FILE: z.optional(z.string()),
});

export type LocalSettings = z.infer<typeof localEnv> & {
  calibration: { everyMs: number; sender: ControlSenderSettings } | undefined;
  audit: AuditSettings;
  /** IMAP_CA_FILE's certificates (PEM), trusted beside Node's roots; undefined when unset. */
  imapTrustedCa: string | undefined;
};

export const loadLocalSettings = (env: NodeJS.ProcessEnv = process.env): LocalSettings => {
  // npm start's loops share one process with no memory setting: the descriptors alone bound a shard.
  const local = boundedShardSize(parseEnv(localEnv, env));
  const parsed = {
    ...local,
    audit: loadAuditSettings(env),
    imapTrustedCa: readTrustedCa(local.IMAP_CA_FILE),
  };
  if (!parsed.CALIBRATION_EVERY) return { ...parsed, calibration: undefined };
  const everyMs = parseCalibrationEvery(parsed.CALIBRATION_EVERY);
  const sender = loadControlSender(env);
  if (everyMs === undefined || !sender)
    throw new ConfigError(
      `invalid configuration in the environment: CALIBRATION_EVERY is ${CALIBRATION_EVERY_RULE}, with CONTROL_SMTP_URL and CONTROL_FROM set`,
    );
  return { ...parsed, calibration: { everyMs, sender } };
};

/**
 * The control sender: an SMTP submission URL (any ESP, or Amazon SES's SMTP interface) and a From address whose
 * domain the operator controls. DKIM signing is the ESP's job: this service signs nothing itself.
 */
const controlSenderEnv = z.object({
  CONTROL_SMTP_URL: z.url({ protocol: /^smtps?$/ }),
  CONTROL_FROM: z.email(),
  /** The login's password when the URL names a user without one. */
  CONTROL_SMTP_PASSWORD: z.optional(nonEmpty()),
});

export interface ControlSenderSettings {
  smtpUrl: string;
  from: string;
  password: string | undefined;
}

/** The control sender from the environment, undefined when CONTROL_SMTP_URL is unset (no calibration then). */
const loadControlSender = (env: NodeJS.ProcessEnv): ControlSenderSettings | undefined => {
  if (!env.CONTROL_SMTP_URL && !env.CONTROL_FROM) return undefined;
  const parsed = parseEnv(controlSenderEnv, env);
  return {
    smtpUrl: parsed.CONTROL_SMTP_URL,
    from: parsed.CONTROL_FROM,
    password: parsed.CONTROL_SMTP_PASSWORD,
  };
};

/** The calibration function's settings on AWS: the control sender's URL and password are in a secret. */
const calibrationEnv = z.object({
  TABLE_NAME: nonEmpty(),
  AWS_REGION: nonEmpty(),
  DYNAMODB_ENDPOINT: z.optional(z.url()),
  LOG_LEVEL: logLevel,
  POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
  POWERTOOLS_TRACE_ENABLED: traceEnabled,
  /** The Secrets Manager secret holding `{"url": "smtp://user@host:587", "password": "…"}`. */
  CONTROL_SENDER_SECRET_ID: nonEmpty(),
  CONTROL_FROM: z.email(),
  AWS_LAMBDA_FUNCTION_NAME: z.optional(nonEmpty()),
});

export type CalibrationConfig = z.infer<typeof calibrationEnv>;

export const loadCalibrationConfig = (env: NodeJS.ProcessEnv = process.env): CalibrationConfig =>
  parseEnv(calibrationEnv, env);

/** The monitor schedule's settings on AWS: the KMS key its messages are sealed under (no secret: it opens, never seals). */
const monitorEnv = z.extend(z.omit(calibrationEnv, { CONTROL_SENDER_SECRET_ID: true, CONTROL_FROM: true }), {
  SEALING_KEY_ARN: nonEmpty(),
});

export const loadMonitorConfig = (env: NodeJS.ProcessEnv = process.env) => parseEnv(monitorEnv, env);

/** The control sender's secret as stored: the URL (its user name too) and the password, never logged. */
export const controlSenderSecret = z.object({
  url: z.url({ protocol: /^smtps?$/ }),
  password: z.optional(nonEmpty()),
});

/** What the command-line tools read from the environment, read once when they start. */
export interface CliSettings {
  /** The region of a deployed stack, when --region is not given. */
  awsRegion: string | undefined;
  dataDir: string;
  localConfig: string;
  oauthClientSecret: string | undefined;
  smtpPassword: string | undefined;
  serviceUrl: string | undefined;
  apiKey: string | undefined;
  /** `admin calibrate`'s sender; undefined when CONTROL_SMTP_URL and CONTROL_FROM are unset. */
  controlSender: ControlSenderSettings | undefined;
  /** WEBHOOK_ALLOW_LOOPBACK_HTTP=1: a monitor's callback URL may be http:// on loopback (tests, npm start). */
  allowLoopbackHttp: boolean;
}

const setOrUndefined = (value: string | undefined) =>
  value === undefined || value === '' ? undefined : value;

export const loadCliSettings = (env: NodeJS.ProcessEnv = process.env): CliSettings => ({
  awsRegion: setOrUndefined(env.AWS_REGION) ?? setOrUndefined(env.AWS_DEFAULT_REGION),
  dataDir: setOrUndefined(env.DATA_DIR) ?? '.data',
  localConfig: setOrUndefined(env.LOCAL_CONFIG) ?? 'config/local.json',
  oauthClientSecret: setOrUndefined(env.OAUTH_CLIENT_SECRET),
  smtpPassword: setOrUndefined(env.SMTP_PASSWORD),
  serviceUrl: setOrUndefined(env.INBOX_PLACEMENT_URL),
  apiKey: setOrUndefined(env.INBOX_PLACEMENT_API_KEY),
  controlSender: loadControlSender(env),
  allowLoopbackHttp: env.WEBHOOK_ALLOW_LOOPBACK_HTTP === '1',
});
