// Owns opening the local DynamoDB store: the running service's dynalite if there is one, else the data folder itself.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../adapters/dynamo/client';
import { startDynaliteThread } from './dynalite';

export const LOCAL_REGION = 'local';
export const LOCAL_TABLE = 'inbox-placement';

export interface LocalStore {
  endpoint: string;
  client: DynamoDBDocumentClient;
  /** True when this process owns the dynalite (and must publish and close it). */
  owned: boolean;
  close(): Promise<void>;
}

const endpointFile = (dataDir: string) => join(dataDir, 'dynalite.json');

const isLive = async (endpoint: string): Promise<boolean> => {
  const probe = createDocumentClient({ region: LOCAL_REGION, endpoint });
  try {
    await probe.send(new ListTablesCommand({}));
    return true;
  } catch {
    return false;
  } finally {
    probe.destroy();
  }
};

/** The service publishes its dynalite so `npm run admin` can share it: leveldb allows one process per folder. */
export const openLocalStore = async (dataDir: string, port = 0): Promise<LocalStore> => {
  mkdirSync(dataDir, { recursive: true });
  try {
    const { endpoint } = JSON.parse(readFileSync(endpointFile(dataDir), 'utf8')) as { endpoint: string };
    if (await isLive(endpoint)) {
      const client = createDocumentClient({ region: LOCAL_REGION, endpoint });
      return { endpoint, client, owned: false, close: async () => client.destroy() };
    }
  } catch {
    // No running service (or a stale file): open the folder ourselves.
  }
  const dynamo = await startDynaliteThread({ path: join(dataDir, 'dynalite'), port });
  writeFileSync(endpointFile(dataDir), JSON.stringify({ endpoint: dynamo.endpoint, pid: process.pid }));
  const client = createDocumentClient({ region: LOCAL_REGION, endpoint: dynamo.endpoint });
  return {
    endpoint: dynamo.endpoint,
    client,
    owned: true,
    close: async () => {
      client.destroy();
      rmSync(endpointFile(dataDir), { force: true });
      await dynamo.close();
    },
  };
};
