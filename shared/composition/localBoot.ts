// Owns npm start's boot over the embedded store: the local config (created from the example when missing), the store
// (one service per data folder), the table, and the config's accounts, API keys and webhook secrets written into it.
import { resolve } from 'node:path';
import { DynamoAccountRegistry } from '../adapters/dynamo/DynamoAccountRegistry';
import { DynamoApiKeyStore } from '../adapters/dynamo/DynamoApiKeyStore';
import { DynamoWebhookStore } from '../adapters/dynamo/DynamoWebhookStore';
import type { LocalSettings } from '../config';
import { systemClock } from '../domain/clock';
import { ensureApiKeys, ensureTable, syncAccounts } from '../local/bootstrap';
import { configKeysLedger, revokeRemovedConfigKeys } from '../local/configKeys';
import { ensureLocalConfig, readLocalConfig } from '../local/localConfig';
import { localSealer } from '../local/localItemKey';
import { LOCAL_TABLE, openLocalStore } from '../local/localStore';
import { ensureWebhookSecrets } from '../local/webhookSecrets';
import type { Logger } from '../log';

export const bootLocalStore = async (env: LocalSettings, log: Logger) => {
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
    new DynamoWebhookStore(store.client, LOCAL_TABLE, localSealer(resolve(env.DATA_DIR))),
    systemClock,
  );
  return { configPath, store, accounts, issued, webhookSecrets };
};
