// `npm run bench -- --only stack-cost`: what a deployed stack costs a month doing nothing, from the synthesized
// template (dashboards, alarms and the metrics they evaluate, secrets, the sealing key), an idle scheduled
// invocation measured on dynalite (duration, DynamoDB units, secret reads, metrics emitted, bytes logged) and 5,000
// accounts' sealed credential items; the scanner's memory from a measured sweep; when a Fargate task would be cheaper.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { createApp } from '../infra/createApp';
import { DEFAULT_SETTINGS } from '../infra/settings';
import type { AccountEntry } from '../shared/adapters/credentials/accountEntrySchema';
import { credentialToItem } from '../shared/adapters/credentials/credentialItem';
import { EnvelopeSealer } from '../shared/adapters/keys/EnvelopeSealer';
import { fileKeyring } from '../shared/adapters/keys/keyrings';
import { DEFAULT_SCAN_SHARD_SIZE } from '../shared/config';
import { DEADLINE_MARGIN_MS } from '../shared/scanner/scanLoop';
import { measureIdleInvocations } from './idleInvocation';
import { itemSize } from './indexWrites';
import { round } from './localServer';
import { PRICES } from './prices';
import { runShardBench } from './scale';
import { plainWire } from './wire';

/** The scanner function's timeout in the synthesized template (it is the one named `…-scanner`). */
const scannerTimeoutSeconds = (
  resources: { Type?: string; Properties?: Record<string, unknown> }[],
): number => {
  const scanner = resources.find(
    (resource) =>
      resource.Type === 'AWS::Lambda::Function' &&
      JSON.stringify(resource.Properties?.FunctionName ?? '').includes('-scanner'),
  );
  const timeout = Number(scanner?.Properties?.Timeout);
  if (!Number.isFinite(timeout)) throw new Error('the template has no scanner function with a timeout');
  return timeout;
};

/** The schedule runs the scanner once a minute: a 30-day month of invocations. */
const SCHEDULED_PER_MONTH = 60 * 24 * 30;
const SECONDS_PER_MONTH = SCHEDULED_PER_MONTH * 60;
const ACCOUNTS = 5_000;
/** What one secret value holds at most. */
const SECRET_LIMIT_BYTES = 65_536;

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;

/** The deployed stacks' templates, synthesized as `cdk synth` does (cdk.json's context), without bundling. */
const templates = (): Resources => {
  const cdk = JSON.parse(readFileSync(join(import.meta.dirname, '../cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const app = createApp({ context: { ...cdk.context, 'aws:cdk:bundling-stacks': [] } });
  return Object.assign(
    {},
    ...[app.data, app.service].map((stack) => Template.fromStack(stack).toJSON().Resources as Resources),
  );
};

/** An alarm is billed per metric it evaluates: one, or each metric of its math expression. */
const alarmMetrics = (alarm: Resources[string]): number => {
  const metrics = alarm.Properties?.Metrics as { MetricStat?: unknown }[] | undefined;
  return metrics ? metrics.filter((metric) => metric.MetricStat !== undefined).length : 1;
};

/** An OAuth-sized entry, as test/adapters/itemCredentials.test.ts stores them: a refresh token past any seen. */
const oauthEntry = (email: string): AccountEntry => ({
  email,
  provider: 'outlook',
  scope: 'default',
  active: true,
  imap: { host: 'outlook.office365.com', port: 993, secure: true },
  auth: {
    user: email,
    oauth2: {
      clientId: 'client',
      refreshToken: randomBytes(1536).toString('base64url'),
      tokenEndpoint: 'https://login.example.test/token',
    },
  },
  folders: {},
});

const credentialStorage = async () => {
  // The local keyring writes the same envelope as KMS's, bar the encrypted data key's length (KMS's blob is longer).
  const sealer = new EnvelopeSealer(fileKeyring(randomBytes(32)));
  const entries = Array.from({ length: ACCOUNTS }, (_, i) => oauthEntry(`seed${i}@mail.test`));
  let itemBytes = 0;
  for (const entry of entries) itemBytes += itemSize(await credentialToItem(entry, sealer, 1));
  const documentBytes = Buffer.byteLength(JSON.stringify({ accounts: entries }));
  return { accounts: ACCOUNTS, itemBytes, documentBytes };
};

const dollars = (value: number) => Number(value.toPrecision(3));

export interface StackCostOptions {
  /** Password accounts of the mail stack for the memory sweep (one shard's worth, up to the shard size). */
  accounts: AccountEntry[];
  /** Seconds the memory sweep runs once logged in. */
  seconds: number;
  idleRuns: number;
  progress?: (line: string) => void;
}

export const runStackCostBench = async (options: StackCostOptions) => {
  const say = options.progress ?? (() => undefined);
  const resources = Object.values(templates());
  const count = (type: string) => resources.filter((resource) => resource.Type === type).length;
  const alarms = resources.filter((resource) => resource.Type === 'AWS::CloudWatch::Alarm');
  const alarmMetricCount = alarms.reduce((sum, alarm) => sum + alarmMetrics(alarm), 0);
  say(`stack-cost: ${options.idleRuns} idle scheduled invocations on dynalite`);
  const idle = await measureIdleInvocations(options.idleRuns);
  const scannerGb = DEFAULT_SETTINGS.scannerMemoryMb / 1024;
  const storage = await credentialStorage();
  const gb = (bytes: number) => bytes / 2 ** 30;
  const perInvocation =
    PRICES.lambdaRequest +
    (Math.ceil(idle.medianMs) / 1000) * scannerGb * PRICES.lambdaArmGbSecond +
    idle.readUnits * PRICES.dynamoReadRequestUnit +
    idle.writeUnits * PRICES.dynamoWriteRequestUnit +
    idle.secretReads * PRICES.secretApiCall;
  const logGbPerMonth = gb(idle.logBytes * SCHEDULED_PER_MONTH);
  const monthly = {
    dashboards: count('AWS::CloudWatch::Dashboard') * PRICES.cloudWatchDashboardMonth,
    alarms: alarmMetricCount * PRICES.cloudWatchAlarmMetricMonth,
    customMetrics: idle.metrics.length * PRICES.cloudWatchCustomMetricMonth,
    secrets: count('AWS::SecretsManager::Secret') * PRICES.secretMonth,
    // The sealing key's first year: rotation adds a backing key's price each year (scripts/lib/prices.ts). An idle
    // scanner opens no credential item, so no KMS request is counted here.
    sealingKey: count('AWS::KMS::Key') * PRICES.kmsKeyMonth,
    scheduledInvocations: SCHEDULED_PER_MONTH * perInvocation,
    // A month of the idle lines ingested, and (kept a month) stored.
    logs: logGbPerMonth * (PRICES.cloudWatchLogsIngestGb + PRICES.cloudWatchLogsStorageGbMonth),
    credentialItems: gb(storage.itemBytes) * (PRICES.dynamoStorageGbMonth + PRICES.dynamoPitrGbMonth),
  };
  const idleTotal = Object.values(monthly).reduce((sum, value) => sum + value, 0);

  const shardAccounts = options.accounts.slice(0, DEFAULT_SCAN_SHARD_SIZE);
  say(`stack-cost: memory of one shard of ${shardAccounts.length} accounts sweeping with its watches`);
  const sweep = await runShardBench({
    wire: plainWire(shardAccounts),
    shardSize: shardAccounts.length,
    shardCounts: [1],
    seconds: options.seconds,
    watch: true,
    progress: say,
  });
  const memory = sweep.rows[0];

  // One shard's scanner busy all month on Lambda, against an arm Fargate task of a quarter vCPU (about Lambda's
  // CPU share at this memory) with the smallest memory Fargate pairs with it that holds the scanner's. The busy
  // Lambda is billed every second, plus a request for each hand-over (a loop invokes the next at its deadline).
  const scannerTimeoutS = scannerTimeoutSeconds(resources);
  const handOversPerMonth = Math.ceil(SECONDS_PER_MONTH / (scannerTimeoutS - DEADLINE_MARGIN_MS / 1000));
  const lambdaBusyMonth =
    SECONDS_PER_MONTH * scannerGb * PRICES.lambdaArmGbSecond + handOversPerMonth * PRICES.lambdaRequest;
  const fargateGb = [0.5, 1, 2].find((size) => size >= scannerGb) ?? 2;
  const fargateMonth =
    (SECONDS_PER_MONTH / 3600) * (0.25 * PRICES.fargateArmVcpuHour + fargateGb * PRICES.fargateArmGbHour);
  return {
    benchmark: 'stack-cost',
    prices: PRICES,
    template: {
      dashboards: count('AWS::CloudWatch::Dashboard'),
      alarms: alarms.length,
      alarmMetrics: alarmMetricCount,
      secrets: count('AWS::SecretsManager::Secret'),
      sealingKeys: count('AWS::KMS::Key'),
    },
    idleInvocation: { ...idle, medianMs: round(idle.medianMs), perMonth: SCHEDULED_PER_MONTH },
    idleMonthly: Object.fromEntries(Object.entries(monthly).map(([name, value]) => [name, dollars(value)])),
    idleMonthlyTotal: dollars(idleTotal),
    credentials: {
      ...storage,
      // The same accounts in Secrets Manager: one secret each, or packed 64 KB a secret (the least it could be).
      perAccountSecretsMonthly: dollars(ACCOUNTS * PRICES.secretMonth),
      packedSecretsMonthly: dollars(
        Math.ceil(storage.documentBytes / SECRET_LIMIT_BYTES) * PRICES.secretMonth,
      ),
    },
    memory: {
      accounts: memory?.accounts ?? 0,
      peakRssMb: memory?.peakRssMb ?? Number.NaN,
      peakHeapUsedMb: memory?.peakHeapUsedMb ?? Number.NaN,
      failed: memory?.failed ?? Number.NaN,
      scannerMemoryMb: DEFAULT_SETTINGS.scannerMemoryMb,
    },
    fargate: {
      lambdaBusyMonthly: dollars(lambdaBusyMonth),
      scannerMemoryMb: DEFAULT_SETTINGS.scannerMemoryMb,
      scannerTimeoutS,
      handOversPerMonth,
      shardAccounts: DEFAULT_SETTINGS.scanShardSize,
      fargateTaskMonthly: dollars(fargateMonth),
      fargateGb,
      breakEvenBusyShare: round(fargateMonth / lambdaBusyMonth, 2),
    },
  };
};
