// Owns `npm start`: the whole service on this machine over embedded parts, running the same handler exports as Lambda.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../adapters/dynamo/DynamoApiKeyStore';
import { DynamoWebhookStore } from '../adapters/dynamo/DynamoWebhookStore';
import { composeLocalService } from '../composition/localService';
import { loadLocalSettings } from '../config';
import { systemClock } from '../domain/clock';
import { createLogger } from '../log';
import { ensureApiKeys, ensureTable, syncAccounts } from './bootstrap';
import { configKeysLedger, revokeRemovedConfigKeys } from './configKeys';
import { ensureLocalConfig, readLocalConfig } from './localConfig';
import { LOCAL_TABLE, openLocalStore } from './localStore';
import { announceLocalService } from './serviceHooks';
import { printIssuedKeys, printListening, printWebhookSecrets } from './startupLines';
import { ensureWebhookSecrets } from './webhookSecrets';

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
  const keyStore = new DynamoApiKeyStore(store.client, LOCAL_TABLE);
  const issued = await ensureApiKeys(keyStore, config, systemClock);
  const revoked = await revokeRemovedConfigKeys(keyStore, config, configKeysLedger(resolve(env.DATA_DIR)));
  if (revoked.length > 0) log.info('revoked the API keys removed from the local config', { keyIds: revoked });
  const webhookSecrets = await ensureWebhookSecrets(
    keyStore,
    new DynamoWebhookStore(store.client, LOCAL_TABLE),
    systemClock,
  );
  const service = await composeLocalService({ settings: env, store, configPath, accounts, log });
  const stopped = announceLocalService(service.parts);
  await service.start();
  service.server.listen(env.PORT, env.HOST);
  await once(service.server, 'listening');
  // Before the ready line: whoever waits for that line may stop the service the moment it reads it.
  const stop = async (signal: string) => {
    log.info('stopping', { signal });
    await service.stop();
    stopped();
    await store.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  const baseUrl = `http://${env.HOST}:${(service.server.address() as AddressInfo).port}`;
  printIssuedKeys(issued);
  printWebhookSecrets(webhookSecrets);
  log.info('listening', { baseUrl, accounts, config: configPath, dataDir: env.DATA_DIR });
  printListening(baseUrl);
};

main().catch((error: unknown) => {
  process.stderr.write(`npm start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
