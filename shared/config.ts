// Owns reading configuration from the environment: validated once at load, failing with the variable's name.

import * as z from 'zod';
import { DEFAULT_UNHEALTHY_AFTER } from './domain/account';
import { DEFAULT_AUTH_CACHE_TTL_MS, MAX_AUTH_CACHE_TTL_MS } from './domain/authCache';
import { DEFAULT_KEY_LIMITS, MAX_IN_FLIGHT_CAP } from './domain/keyLimits';
import { ACTIVE_MS, DEFAULT_TAB_GRACE_MS } from './domain/limits';

const logLevel = z.enum(['debug', 'info', 'warn', 'error']).default('info');

/** The API's own settings, the same wherever it runs (Lambda, npm start). */
const apiSettings = {
  LOG_LEVEL: logLevel,
  /** Set by the Lambda runtime only: switches logs and metrics to Powertools. */
  AWS_LAMBDA_FUNCTION_NAME: z.string().min(1).optional(),
  /** Checks one API key may start per minute; 0 turns the limit off. */
  START_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(DEFAULT_KEY_LIMITS.startsPerMinute),
  /** Checks of one API key neither complete nor timed out at once; 0 turns the cap off. */
  MAX_CHECKS_IN_FLIGHT_PER_KEY: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_IN_FLIGHT_CAP)
    .default(DEFAULT_KEY_LIMITS.maxInFlight),
  /** How long an API process trusts a key it has read (a revocation takes up to this long); 0 turns it off. */
  AUTH_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_AUTH_CACHE_TTL_MS)
    .default(DEFAULT_AUTH_CACHE_TTL_MS),
};

const apiEnv = z.object({
  TABLE_NAME: z.string().min(1),
  AWS_REGION: z.string().min(1),
  DYNAMODB_ENDPOINT: z.url().optional(),
  ...apiSettings,
});

export type ApiConfig = z.infer<typeof apiEnv>;

/** How often a scanner loop sweeps while a check waits: the main term of detection latency (see BENCHMARKS.md). */
export const DEFAULT_SCAN_INTERVAL_MS = 1000;
/** Accounts per scanner loop: it holds up to 3 IMAP connections per account (the sweep session and its watches), 300 at 100 accounts, well within one Lambda's 1,024 file descriptors. */
export const DEFAULT_SCAN_SHARD_SIZE = 100;

export class ConfigError extends Error {}

export const parseEnv = <T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.infer<T> => {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new ConfigError(`invalid configuration in the environment: ${problems.join('; ')}`);
};

/** How long a Gmail INBOX copy waits for its tab, wherever the scanner runs. */
const tabGrace = z.coerce.number().int().min(0).max(ACTIVE_MS).default(DEFAULT_TAB_GRACE_MS);

const scanEnv = z.object({
  TABLE_NAME: z.string().min(1),
  AWS_REGION: z.string().min(1),
  DYNAMODB_ENDPOINT: z.url().optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** The Secrets Manager secret holding `{"accounts": [...]}` with every mailbox's credentials. */
  CREDENTIALS_SECRET_ID: z.string().min(1),
  SCAN_INTERVAL_MS: z.coerce.number().int().min(250).max(60_000).default(DEFAULT_SCAN_INTERVAL_MS),
  /** Accounts one scanner invocation sweeps at most; beyond it the accounts are split across concurrent invocations. */
  SCAN_SHARD_SIZE: z.coerce.number().int().min(1).max(1000).default(DEFAULT_SCAN_SHARD_SIZE),
  /** Failed sweeps in a row after which an account is left out of new checks until it works again. */
  UNHEALTHY_AFTER_FAILURES: z.coerce.number().int().min(1).max(1000).default(DEFAULT_UNHEALTHY_AFTER),
  GMAIL_TAB_GRACE_MS: tabGrace,
  /** Set by the Lambda runtime; the scanner invokes itself to hand over a loop that reaches its deadline. */
  AWS_LAMBDA_FUNCTION_NAME: z.string().min(1),
});

export type ScanConfig = z.infer<typeof scanEnv>;

export const loadScanConfig = (env: NodeJS.ProcessEnv = process.env): ScanConfig => parseEnv(scanEnv, env);

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig => parseEnv(apiEnv, env);

/**
 * `npm start`'s settings: where it listens and keeps its data, the API's own settings (its table, region and endpoint
 * are the embedded store's, known only once that runs), and the scanner's.
 */
const localEnv = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATA_DIR: z.string().default('.data'),
  LOCAL_CONFIG: z.string().default('config/local.json'),
  ...apiSettings,
  SCAN_INTERVAL_MS: z.coerce.number().int().min(250).max(60_000).default(DEFAULT_SCAN_INTERVAL_MS),
  SCAN_SHARD_SIZE: z.coerce.number().int().min(1).max(1000).default(DEFAULT_SCAN_SHARD_SIZE),
  UNHEALTHY_AFTER_FAILURES: z.coerce.number().int().min(1).max(1000).default(DEFAULT_UNHEALTHY_AFTER),
  GMAIL_TAB_GRACE_MS: tabGrace,
  /** Benchmarks only: count DynamoDB request units and scanner loop time, printed as one JSON line on exit. */
  LOCAL_USAGE_REPORT: z.enum(['0', '1']).default('0'),
  /** Benchmarks only: time each handler call and serve the figures (see createLocalServer). */
  LOCAL_HANDLER_TIMING: z.enum(['0', '1']).default('0'),
});

export type LocalSettings = z.infer<typeof localEnv>;

export const loadLocalSettings = (env: NodeJS.ProcessEnv = process.env): LocalSettings =>
  parseEnv(localEnv, env);

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
}

const nonEmpty = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

export const loadCliSettings = (env: NodeJS.ProcessEnv = process.env): CliSettings => ({
  awsRegion: nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION),
  dataDir: nonEmpty(env.DATA_DIR) ?? '.data',
  localConfig: nonEmpty(env.LOCAL_CONFIG) ?? 'config/local.json',
  oauthClientSecret: nonEmpty(env.OAUTH_CLIENT_SECRET),
  smtpPassword: nonEmpty(env.SMTP_PASSWORD),
  serviceUrl: nonEmpty(env.INBOX_PLACEMENT_URL),
  apiKey: nonEmpty(env.INBOX_PLACEMENT_API_KEY),
});
