// Owns the scanner Lambda's wiring: clients, credentials and tokens once per container, and a scanner per shard.
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SecretAccountEntries } from '../adapters/credentials/accountEntries';
import { ItemCredentialSource } from '../adapters/credentials/ItemCredentialSource';
import { ItemCredentialStore } from '../adapters/credentials/ItemCredentialStore';
import { createDocumentClient } from '../adapters/dynamo/client';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoCheckStore } from '../adapters/dynamo/DynamoCheckStore';
import { DynamoLease } from '../adapters/dynamo/DynamoLease';
import { DynamoOpenChecks } from '../adapters/dynamo/DynamoOpenChecks';
import { DynamoShardLayout } from '../adapters/dynamo/DynamoShardLayout';
import { DEFAULT_IMAP_TIMEOUTS, ImapConnector } from '../adapters/imap/ImapConnector';
import { OAuthTokens } from '../adapters/oauth/OAuthTokens';
import { refreshTokenPersister } from '../adapters/oauth/refreshTokenPersister';
import { ScannerInvoker } from '../adapters/ScannerInvoker';
import { emitAudit } from '../adapters/telemetry/auditMetricsEmf';
import { createMetrics, emitNow, scanMetrics } from '../adapters/telemetry/powertools';
import { traced, tracing } from '../adapters/telemetry/tracing';
import { auditTelemetry, judgeCopy } from '../audit';
import type { ScanConfig } from '../config';
import { systemClock } from '../domain/clock';
import { createLambdaLogger } from '../log';
import { type HandOverChain, nextHop } from '../scanner/handOverChain';
import { missedWhileClosing } from '../scanner/invocation';
import { sweepOneAccount } from '../scanner/probeSweep';
import { DEADLINE_MARGIN_MS } from '../scanner/scanLoop';
import { type Shard, shardCountFor } from '../scanner/shards';
import { loadAuditSettings } from '../settings/auditSettings';
import { SERVICES } from '../telemetry/metrics';
import { AUDIT_DRAIN_MS, composeAuditor, withAudit } from './auditParts';
import { loopTiming } from './loopTiming';
import { createScanner, type ScannerParts } from './scanner';
import { PROBE_LEASE, probeScanner } from './scanProbe';
import { kmsSealer } from './sealing';
import { composeWakeUp } from './wakeUp';

type Log = ReturnType<typeof createLambdaLogger>;
type DocumentClient = ReturnType<typeof createDocumentClient>;

/** The accounts' credentials and OAuth2 tokens, once per container. */
const scanCredentials = (
  config: ScanConfig,
  client: DocumentClient,
  log: Log,
  metrics: ReturnType<typeof scanMetrics>,
) => {
  // One item per account in the table sealed under the KMS key (any account not moved yet in the secret): a shard
  // reads only the accounts it sweeps, and a rotated refresh token is re-sealed into that account's item alone.
  const store = new ItemCredentialStore(
    client,
    config.TABLE_NAME,
    new SecretAccountEntries(
      traced(new SecretsManagerClient({ region: config.AWS_REGION })),
      config.CREDENTIALS_SECRET_ID,
    ),
    { clock: systemClock, sealer: kmsSealer(config) },
  );
  const credentials = new ItemCredentialSource(store, systemClock);
  const tokens = new OAuthTokens({
    clock: systemClock,
    log,
    ...refreshTokenPersister(store),
    onConsentRequired: metrics.consentRequired,
  });
  return { credentials, tokens };
};

/** The sender audit beside detection, over the function's own resolver, with each stored audit's dashboard points. */
const scanAuditor = (
  config: ScanConfig,
  parts: Pick<Parameters<typeof composeAuditor>[0], 'client' | 'credentials' | 'sessions' | 'log'>,
  layout: DynamoShardLayout,
  powertools: ReturnType<typeof createMetrics>,
) => {
  const auditor = composeAuditor({
    ...parts,
    tableName: config.TABLE_NAME,
    clock: systemClock,
    settings: loadAuditSettings(),
  });
  // Each stored audit's listings and rule items for the dashboard, for every provider its check had seeds at.
  const telemetry = auditTelemetry({
    checks: new DynamoCheckStore(parts.client, config.TABLE_NAME, layout),
    emit: (points) => emitAudit(powertools, points),
    log: parts.log,
  });
  auditor?.listen({
    audited: (checkId, { facts, dns }) =>
      telemetry(checkId, { provider: facts.provider, ...judgeCopy({ copy: facts, dns }) }),
  });
  return auditor;
};

type ShardScanners = Map<string, ReturnType<typeof createScanner>>;

/** One scanner (and its IMAP connections) per shard this container has run, kept for the next invocation. */
const scannersByShard = (
  config: ScanConfig,
  scanners: ShardScanners,
  parts: Pick<ScannerParts, 'client' | 'credentials' | 'tokens' | 'log' | 'events'>,
) => {
  return (shard: Shard) => {
    const key = `${shard.index}/${shard.count}`;
    const built =
      scanners.get(key) ??
      createScanner({
        ...parts,
        tableName: config.TABLE_NAME,
        clock: systemClock,
        unhealthyAfter: config.UNHEALTHY_AFTER_FAILURES,
        tabGraceMs: config.GMAIL_TAB_GRACE_MS,
        patienceMs: config.SCAN_PATIENCE_MS,
        reportRetentionDays: config.REPORT_RETENTION_DAYS,
        trustedCa: config.imapTrustedCa,
        shard,
      });
    scanners.set(key, built);
    return built;
  };
};

/** The scanner's own invocations (hand-over, further shards, wake-ups), through its live alias. */
const scanInvoker = (config: ScanConfig, log: Log) =>
  new ScannerInvoker(
    traced(new LambdaClient({ region: config.AWS_REGION })),
    // Through the live alias: a new version runs only once CodeDeploy has moved the alias after the deploy probe.
    config.LIVE_ALIAS
      ? `${config.AWS_LAMBDA_FUNCTION_NAME}:${config.LIVE_ALIAS}`
      : config.AWS_LAMBDA_FUNCTION_NAME,
    log,
  );

/** The deploy probe's parts: its own lease, a sweep of one active account recording in memory only, a beat. */
const scanProbeParts = (
  config: ScanConfig,
  parts: Pick<ScannerParts, 'client' | 'credentials' | 'tokens' | 'log'>,
  powertools: ReturnType<typeof createMetrics>,
) => ({
  lease: new DynamoLease(parts.client, config.TABLE_NAME, PROBE_LEASE),
  sweep: async () =>
    sweepOneAccount(
      {
        connector: new ImapConnector(
          parts.log,
          DEFAULT_IMAP_TIMEOUTS,
          undefined,
          parts.tokens,
          config.imapTrustedCa,
        ),
        credentials: parts.credentials,
        clock: systemClock,
        log: parts.log,
      },
      await new DynamoAccountRegistry(parts.client, config.TABLE_NAME).anyActive(),
    ),
  heartbeat: () => emitNow(powertools, 'scannerHeartbeat', 1),
  now: () => systemClock.now(),
});

export const composeScanLambda = (config: ScanConfig) => {
  const log = createLambdaLogger(SERVICES.scan, config.LOG_LEVEL);
  const powertools = createMetrics(SERVICES.scan, config.POWERTOOLS_METRICS_NAMESPACE);
  const metrics = scanMetrics(powertools);
  const client = traced(
    createDocumentClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT }),
  );
  const { credentials, tokens } = scanCredentials(config, client, log, metrics);
  const layout = new DynamoShardLayout(client, config.TABLE_NAME);
  const scanners: ShardScanners = new Map();
  // The audit reads each copy over the session one of these scanners holds for its account: never a login of its own.
  const sessions = () => [...scanners.values()].map(({ scanner }) => scanner);
  const auditor = scanAuditor(config, { client, credentials, sessions, log }, layout, powertools);
  const events = withAudit(metrics, auditor);
  const scannerFor = scannersByShard(config, scanners, { client, credentials, tokens, log, events });
  const invoker = scanInvoker(config, log);
  /** The stream's batch: starts the loops nobody runs, asynchronously, and returns without waiting for them. */
  const wakeUp = composeWakeUp({
    client,
    tableName: config.TABLE_NAME,
    clock: systemClock,
    start: (shard, reservedBy) => invoker.startLoop(shard, reservedBy),
  });
  return {
    log,
    metrics,
    /** The X-Ray segment of each invocation, where the deploy turned it on. */
    tracing: tracing(SERVICES.scan, config.POWERTOOLS_TRACE_ENABLED === 'true'),
    scannerFor,
    invoker,
    wakeUp,
    /**
     * After a loop of `shard` stopped idle, having last listed the checks at `since`: a check started while it was
     * closing (its wake-up saw the lease still held) gets a loop now, not at the next schedule. Best effort: the
     * schedule covers a failure.
     */
    wakeUpMissed: async (shard: Shard, since: number, id: string) => {
      try {
        const checks = new DynamoOpenChecks(client, config.TABLE_NAME, layout, shard);
        if (await missedWhileClosing(checks, shard, since, systemClock.now())) return await wakeUp(id);
      } catch (error) {
        log.warn('could not look for checks started while the loop closed', { error });
      }
      return undefined;
    },
    timing: loopTiming(config.SCAN_INTERVAL_MS, DEADLINE_MARGIN_MS),
    /** After the loop: lets the audits it started finish within `graceMs`, so a frozen container cuts none. */
    auditsSettled: (graceMs: number) => auditor?.settled(Math.min(graceMs, AUDIT_DRAIN_MS)),
    /** The deploy probe's sweep of one account with this version's code; records nothing a live check sees. */
    probe: (owner: string) =>
      probeScanner(scanProbeParts(config, { client, credentials, tokens, log }, powertools), owner),
    /**
     * How many shards the accounts need now, published for starting checks to file under (DynamoCheckStore.create).
     * Counted from the credential items' count (cached a minute), not from reading them.
     */
    publishShards: async (): Promise<number> => {
      const count = shardCountFor(await credentials.count(), config.SCAN_SHARD_SIZE);
      await layout.publish(count, systemClock.now());
      return count;
    },
  };
};

/**
 * A loop out of time hands its shard over as the next hop of its chain; past the chain's bound it does not, and the
 * minute schedule starts a fresh chain instead (shared/scanner/handOverChain.ts).
 */
export const handOverNext = async (
  scan: Pick<ScanLambda, 'invoker' | 'log'>,
  shard: Shard,
  chain: HandOverChain,
  now: number,
): Promise<void> => {
  const next = nextHop(chain, now);
  if ('refused' in next) {
    scan.log.warn('hand-over refused; the minute schedule starts a fresh loop', {
      shard,
      reason: next.refused,
    });
    return;
  }
  await scan.invoker.handOver(shard, next);
};

export type ScanLambda = ReturnType<typeof composeScanLambda>;
