// Owns `npm start`: the whole service on this machine over embedded parts, running the same handler exports as Lambda.

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { AccountEntriesCredentialSource } from '../adapters/credentials/AccountEntriesCredentialSource';
import { FileAccountEntries } from '../adapters/credentials/accountEntries';
import { createDocumentClient } from '../adapters/dynamo/client';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../adapters/dynamo/DynamoApiKeyStore';
import { DynamoShardLayout } from '../adapters/dynamo/DynamoShardLayout';
import { OAuthTokens } from '../adapters/oauth/OAuthTokens';
import { refreshTokenPersister } from '../adapters/oauth/refreshTokenPersister';
import { buildApiDeps } from '../composition/apiDeps';
import { createScanner } from '../composition/scanner';
import { loadLocalSettings } from '../config';
import { systemClock } from '../domain/clock';
import { createFallbackHandler, createGetHandler, createStartHandler } from '../http/handlers';
import { createLogger } from '../log';
import { shardCountFor } from '../scanner/shards';
import { ensureApiKeys, ensureTable, syncAccounts } from './bootstrap';
import { LocalExpiry } from './expiry';
import type { HandlerTable } from './httpAdapter';
import { createLocalServer } from './httpAdapter';
import { LocalScanRunner } from './LocalScanRunner';
import { ensureLocalConfig, readLocalConfig } from './localConfig';
import { LOCAL_REGION, LOCAL_TABLE, openLocalStore } from './localStore';
import { UsageMeter } from './usage';

const main = async () => {
  const env = loadLocalSettings();
  const log = createLogger('local', env.LOG_LEVEL);
  const configPath = resolve(env.LOCAL_CONFIG);
  if (ensureLocalConfig(configPath, resolve('config/local.example.json'))) {
    log.info('created the local config from config/local.example.json', { config: env.LOCAL_CONFIG });
  }
  const config = readLocalConfig(configPath);
  const store = await openLocalStore(resolve(env.DATA_DIR));
  if (!store.owned)
    throw new Error(`another local service is already using ${env.DATA_DIR} (${store.endpoint})`);

  await ensureTable(store.client, LOCAL_TABLE);
  const accounts = await syncAccounts(new DynamoAccountRegistry(store.client, LOCAL_TABLE), config);
  const issued = await ensureApiKeys(new DynamoApiKeyStore(store.client, LOCAL_TABLE), config, systemClock);

  // The API as on Lambda, over the embedded store: its settings are npm start's, its table the local one.
  const apiClient = createDocumentClient({ region: LOCAL_REGION, endpoint: store.endpoint });
  const api = buildApiDeps(
    { ...env, TABLE_NAME: LOCAL_TABLE, AWS_REGION: LOCAL_REGION, DYNAMODB_ENDPOINT: store.endpoint },
    apiClient,
  );
  const entries = new FileAccountEntries(configPath);
  // Re-read every few seconds, so `npm run admin -- accounts add` takes effect without a restart.
  const credentials = new AccountEntriesCredentialSource(entries, systemClock, 5000);
  const tokens = new OAuthTokens({ clock: systemClock, log, ...refreshTokenPersister(entries) });
  // As on Lambda, one loop per shard of SCAN_SHARD_SIZE accounts; here they share the process.
  const count = shardCountFor(accounts, env.SCAN_SHARD_SIZE);
  await new DynamoShardLayout(store.client, LOCAL_TABLE).publish(count, systemClock.now());
  const runners = Array.from({ length: count }, (_, index) => {
    const { scanner, lease } = createScanner({
      client: store.client,
      tableName: LOCAL_TABLE,
      credentials,
      tokens,
      clock: systemClock,
      log: createLogger('scan', env.LOG_LEVEL),
      unhealthyAfter: env.UNHEALTHY_AFTER_FAILURES,
      tabGraceMs: env.GMAIL_TAB_GRACE_MS,
      shard: { index, count },
    });
    return new LocalScanRunner(
      { scanner, lease, clock: systemClock, log },
      // As on Lambda: wait for a new check to show in the index, but stop soon after the last one is done.
      {
        intervalMs: env.SCAN_INTERVAL_MS,
        leaseTtlMs: env.SCAN_INTERVAL_MS * 5,
        idleGraceMs: 10_000,
        lingerMs: env.SCAN_INTERVAL_MS,
        // A lease left by a killed process expires within its TTL: wait that long for it, not for the schedule.
        acquireWaitMs: env.SCAN_INTERVAL_MS * 6,
      },
    );
  });
  const meter = env.LOCAL_USAGE_REPORT === '1' ? new UsageMeter() : undefined;
  if (meter) {
    meter.attach(store.client);
    meter.attach(apiClient);
  }
  /** One JSON line with what was counted so far; on exit, and on SIGUSR2 so a benchmark can take phases apart. */
  const reportUsage = () => {
    if (!meter) return;
    const loops = runners.map((shard) => shard.usage());
    const scanner = {
      runs: loops.reduce((sum, loop) => sum + loop.runs, 0),
      runMs: loops.reduce((sum, loop) => sum + loop.runMs, 0),
    };
    process.stdout.write(`usage report: ${JSON.stringify({ dynamo: meter.report(), scanner })}\n`);
  };
  if (meter) process.on('SIGUSR2', reportUsage);
  const runner = {
    start: () => {
      for (const shard of runners) shard.start();
    },
    kick: async () => {
      await Promise.all(runners.map((shard) => shard.kick()));
    },
    stop: async () => {
      await Promise.all(runners.map((shard) => shard.stop()));
    },
  };
  // The same handlers as on Lambda; locally start kicks the in-process scanner instead of a Lambda.
  const handlers: HandlerTable = {
    start: createStartHandler({ ...api, trigger: runner }),
    get: createGetHandler(api),
    fallback: createFallbackHandler(api),
  };
  runner.start();
  // dynalite has no TTL: without this stand-in the local table keeps every check ever started. Its own client, which
  // the usage meter does not count: DynamoDB's TTL deletes for nothing and needs no Scan, so what the stand-in reads
  // and deletes is no cost of the service's.
  const expiryClient = createDocumentClient({ region: LOCAL_REGION, endpoint: store.endpoint });
  const expiry = new LocalExpiry({ client: expiryClient, tableName: LOCAL_TABLE, clock: systemClock, log });
  expiry.start();

  const server = createLocalServer(handlers, log, { handlerTiming: env.LOCAL_HANDLER_TIMING === '1' });
  server.listen(env.PORT, env.HOST);
  await once(server, 'listening');
  // Before the ready line: whoever waits for that line may stop the service the moment it reads it.
  const stop = async (signal: string) => {
    log.info('stopping', { signal });
    server.close();
    server.closeAllConnections();
    await runner.stop();
    await expiry.stop();
    expiryClient.destroy();
    reportUsage();
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${env.HOST}:${port}`;
  for (const { key, scope } of issued) {
    // Printed once: only its hash is stored. Shown as plain lines so a person can copy it and a script can grep it.
    process.stdout.write(`\nAPI key for scope "${scope}" (shown once, save it): ${key}\n`);
  }
  log.info('listening', { baseUrl, accounts, config: configPath, dataDir: env.DATA_DIR });
  process.stdout.write(`\nInbox placement service listening on ${baseUrl}\n`);
};

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
