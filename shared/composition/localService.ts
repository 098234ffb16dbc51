// Owns npm start's wiring over an open local store: the API as on Lambda, one in-process loop per shard, the TTL
// stand-in and the HTTP server, from npm start's settings.
import { resolve } from 'node:path';
import { AccountEntriesCredentialSource } from '../adapters/credentials/AccountEntriesCredentialSource';
import { FileAccountEntries } from '../adapters/credentials/accountEntries';
import { createDocumentClient } from '../adapters/dynamo/client';
import { DynamoShardLayout } from '../adapters/dynamo/DynamoShardLayout';
import { OAuthTokens } from '../adapters/oauth/OAuthTokens';
import { refreshTokenPersister } from '../adapters/oauth/refreshTokenPersister';
import { calibrate } from '../calibration';
import type { LocalSettings } from '../config';
import { type Clock, systemClock } from '../domain/clock';
import { createFallbackHandler, createGetHandler, createScreen, createStartHandler } from '../http/handlers';
import { CalibrationSchedule } from '../local/CalibrationSchedule';
import { LocalExpiry } from '../local/expiry';
import { createLocalServer } from '../local/httpAdapter';
import { LocalScanRunner } from '../local/LocalScanRunner';
import { LocalWebhookSender } from '../local/LocalWebhookSender';
import { localSealer } from '../local/localItemKey';
import { LOCAL_REGION, LOCAL_TABLE, type LocalStore } from '../local/localStore';
import type { LocalServiceParts } from '../local/serviceHooks';
import { createLogger, type Logger } from '../log';
import type { MonitorTelemetry } from '../monitors';
import type { Scanner } from '../scanner/Scanner';
import { shardCountFor } from '../scanner/shards';
import { buildApiDeps } from './apiDeps';
import { AUDIT_DRAIN_MS, composeAuditor, withAudit } from './auditParts';
import { composeCalibration } from './calibration';
import { localMonitors } from './localMonitors';
import { loopTiming } from './loopTiming';
import { createScanner, type ScannerParts } from './scanner';
import { buildDeliverDeps } from './webhookDeps';

type DocumentClient = ReturnType<typeof createDocumentClient>;

export interface LocalServiceInput {
  settings: LocalSettings;
  store: LocalStore;
  /** The local config file: the scanner's credentials, re-read as `npm run admin -- accounts` edits it. */
  configPath: string;
  /** Accounts registered at boot: how many shards the loops split them into. */
  accounts: number;
  log: Logger;
  /** The calibration schedule's clock: the loops' own unless a test moves it. */
  scheduleClock?: Clock;
  /** Tests only: the sender audit's blocklists asked at the test DNS server's zones. */
  auditListZones?: Readonly<Record<string, string>>;
}

/** The API's dependencies as on Lambda, over the embedded store: npm start's settings, the local table. */
const localApi = (settings: LocalSettings, store: LocalStore, apiClient: DocumentClient) => ({
  ...buildApiDeps(
    { ...settings, TABLE_NAME: LOCAL_TABLE, AWS_REGION: LOCAL_REGION, DYNAMODB_ENDPOINT: store.endpoint },
    apiClient,
  ),
  ...(settings.audit.on ? {} : { audits: undefined }),
});

/** The config file's accounts, re-read every few seconds so `npm run admin -- accounts add` needs no restart. */
const localCredentials = (configPath: string, log: Logger) => {
  const entries = new FileAccountEntries(configPath);
  const credentials = new AccountEntriesCredentialSource(entries, systemClock, 5000);
  const tokens = new OAuthTokens({ clock: systemClock, log, ...refreshTokenPersister(entries) });
  return { credentials, tokens };
};

/** The same sending code as the AWS sender function; here its queue is the local store, run in this process. */
const localWebhooks = (store: LocalStore, settings: LocalSettings, policy: { allowLoopbackHttp: boolean }) =>
  new LocalWebhookSender(
    buildDeliverDeps({
      client: store.client,
      tableName: LOCAL_TABLE,
      policy,
      clock: systemClock,
      log: createLogger('webhook', settings.LOG_LEVEL),
      sealer: localSealer(resolve(settings.DATA_DIR)),
    }),
  );

interface LoopParts extends Pick<ScannerParts, 'credentials' | 'tokens'> {
  store: LocalStore;
  settings: LocalSettings;
  log: Logger;
  auditor: ReturnType<typeof composeAuditor>;
  webhooks: LocalWebhookSender;
  count: number;
  timing: ReturnType<typeof loopTiming>;
  /** Every loop's scanner, added as built: the audit reads each copy over the session one of them holds. */
  scanners: Scanner[];
}

/** As on Lambda, one loop per shard; here they share the process, and a queued webhook is sent at once. */
const localLoops = ({
  store,
  settings,
  credentials,
  tokens,
  log,
  auditor,
  webhooks,
  count,
  timing,
  scanners,
}: LoopParts) =>
  Array.from({ length: count }, (_, index) => {
    const { scanner, lease } = createScanner({
      client: store.client,
      tableName: LOCAL_TABLE,
      credentials,
      tokens,
      clock: systemClock,
      log: createLogger('scan', settings.LOG_LEVEL),
      unhealthyAfter: settings.UNHEALTHY_AFTER_FAILURES,
      tabGraceMs: settings.GMAIL_TAB_GRACE_MS,
      patienceMs: settings.SCAN_PATIENCE_MS,
      reportRetentionDays: settings.REPORT_RETENTION_DAYS,
      trustedCa: settings.imapTrustedCa,
      shard: { index, count },
      onWebhookQueued: (checkId) => webhooks.kick(checkId),
      events: withAudit(undefined, auditor),
    });
    scanners.push(scanner);
    return new LocalScanRunner({ scanner, lease, clock: systemClock, log }, timing);
  });

/** How often the loops ran and for how long, summed (the benchmarks' hook). */
const usageOf = (loops: readonly LocalScanRunner[]) =>
  loops
    .map((loop) => loop.usage())
    .reduce((sum, loop) => ({ runs: sum.runs + loop.runs, runMs: sum.runMs + loop.runMs }), {
      runs: 0,
      runMs: 0,
    });

/** CALIBRATION_EVERY: the calibration `admin calibrate` runs, on a schedule, its control checks scanned by the loops. */
const localCalibration = (
  settings: LocalSettings,
  store: LocalStore,
  log: Logger,
  trigger: { kick(): Promise<void> },
  scheduleClock: Clock,
  telemetry: MonitorTelemetry,
) => {
  const calibration =
    settings.calibration &&
    composeCalibration({
      client: store.client,
      tableName: LOCAL_TABLE,
      clock: systemClock,
      log,
      sender: { ...settings.calibration.sender, option: 'CONTROL_SMTP_URL' },
      trigger,
      telemetry,
    });
  const schedule =
    settings.calibration &&
    calibration &&
    new CalibrationSchedule({
      run: () => calibrate({ ...calibration.deps, everyMs: settings.calibration?.everyMs }),
      clock: scheduleClock,
      log,
      everyMs: settings.calibration.everyMs,
    });
  return { calibration, schedule };
};

interface DetectionInput
  extends Pick<LocalServiceInput, 'settings' | 'store' | 'configPath' | 'accounts' | 'log'> {
  webhooks: LocalWebhookSender;
  auditListZones: LocalServiceInput['auditListZones'];
}

/** The in-process loops, one per shard of SCAN_SHARD_SIZE accounts as on Lambda, and the audit over their sessions. */
const localDetection = async ({
  settings,
  store,
  configPath,
  accounts,
  log,
  webhooks,
  auditListZones,
}: DetectionInput) => {
  const { credentials, tokens } = localCredentials(configPath, log);
  // As on Lambda, one loop per shard of SCAN_SHARD_SIZE accounts; here they share the process.
  const count = shardCountFor(accounts, settings.SCAN_SHARD_SIZE);
  await new DynamoShardLayout(store.client, LOCAL_TABLE).publish(count, systemClock.now());
  const timing = loopTiming(settings.SCAN_INTERVAL_MS, 0);
  const scanners: Scanner[] = [];
  // One audit runner for every loop of the process: its claim keeps one audit per check whichever loop records.
  const auditor = composeAuditor({
    client: store.client,
    tableName: LOCAL_TABLE,
    credentials,
    sessions: () => scanners,
    clock: systemClock,
    log: createLogger('audit', settings.LOG_LEVEL),
    settings: settings.audit,
    ...(auditListZones ? { listZones: auditListZones } : {}),
  });
  const loops = localLoops({
    ...{ store, settings, credentials, tokens, log, auditor, webhooks, count, timing, scanners },
  });
  const trigger = {
    kick: async () => {
      await Promise.all(loops.map((loop) => loop.kick()));
    },
  };
  return { auditor, loops, trigger };
};

export const composeLocalService = async ({
  settings,
  store,
  configPath,
  accounts,
  log,
  scheduleClock = systemClock,
  auditListZones,
}: LocalServiceInput) => {
  const apiClient = createDocumentClient({ region: LOCAL_REGION, endpoint: store.endpoint });
  const callbackPolicy = { allowLoopbackHttp: settings.WEBHOOK_ALLOW_LOOPBACK_HTTP === '1' };
  const webhooks = localWebhooks(store, settings, callbackPolicy);
  const api = localApi(settings, store, apiClient);
  const { auditor, loops, trigger } = await localDetection({
    ...{ settings, store, configPath, accounts, log, webhooks, auditListZones },
  });
  // Monitors: each due one runs as an ordinary check scanned by these loops; its counts go to an in-process sink,
  // the calibration's control runs' too (a control run is the calibration monitor's).
  const monitors = localMonitors({ store, settings, log, trigger, clock: scheduleClock });
  const sink = monitors.sink;
  const { calibration, schedule } = localCalibration(settings, store, log, trigger, scheduleClock, sink);
  // The same handlers as on Lambda; locally start kicks the in-process loops instead of a Lambda.
  const server = createLocalServer(
    {
      start: createStartHandler({ ...api, trigger, callbackPolicy }),
      get: createGetHandler(api),
      fallback: createFallbackHandler(api),
    },
    log,
    { handlerTiming: settings.LOCAL_HANDLER_TIMING === '1', screen: createScreen(api) },
  );
  // dynalite has no TTL: without this stand-in the local table keeps every check ever started. Its own client, apart
  // from `parts.clients`: DynamoDB's TTL deletes for nothing and needs no Scan, so this is no cost of the service's.
  const expiryClient = createDocumentClient({ region: LOCAL_REGION, endpoint: store.endpoint });
  const expiry = new LocalExpiry({ client: expiryClient, tableName: LOCAL_TABLE, clock: systemClock, log });
  const parts: LocalServiceParts = {
    clients: [store.client, apiClient],
    audits: { listen: (listener) => auditor?.listen(listener) },
    loopUsage: () => usageOf(loops),
  };
  return {
    server,
    parts,
    schedule,
    monitors,
    start: () => {
      for (const loop of loops) loop.start();
      schedule?.start();
      monitors.schedule.start();
      expiry.start();
      return webhooks.start();
    },
    /** Stops taking requests, ends the loops (their watches close before their leases are released), then expiry. */
    stop: async () => {
      server.close();
      server.closeAllConnections();
      await schedule?.stop();
      await monitors.schedule.stop();
      await calibration?.close();
      await Promise.all(loops.map((loop) => loop.stop()));
      await auditor?.settled(AUDIT_DRAIN_MS);
      await webhooks.stop();
      await expiry.stop();
      expiryClient.destroy();
    },
  };
};
