// `npm start`: the whole service on this machine over embedded parts, running the same handler exports as Lambda.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { bootLocalStore } from '../composition/localBoot';
import { composeLocalService } from '../composition/localService';
import { loadLocalSettings } from '../config';
import { announceLocalService } from '../local/serviceHooks';
import { printIssuedKeys, printListening, printWebhookSecrets } from '../local/startupLines';
import { createLogger } from '../log';

const main = async () => {
  const env = loadLocalSettings();
  const log = createLogger('local', env.LOG_LEVEL);
  const { configPath, store, accounts, issued, webhookSecrets } = await bootLocalStore(env, log);
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
