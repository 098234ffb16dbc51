// Owns opening the local DynamoDB store: the running service's dynalite if there is one, else the data folder itself.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../adapters/dynamo/client';
import { parseJsonText } from '../domain/jsonText';
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
  // The folder holds the table (checks, key hashes) and the endpoint of a store that takes any request: for this
  // user only. chmod as well, for a folder made before by an older version or a wider umask.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  chmodSync(dataDir, 0o700);
  try {
    const { endpoint } = parseJsonText(
      readFileSync(endpointFile(dataDir), 'utf8'),
      endpointFile(dataDir),
    ) as {
      endpoint: string;
    };
    if (await isLive(endpoint)) {
      const client = createDocumentClient({ region: LOCAL_REGION, endpoint });
      return { endpoint, client, owned: false, close: async () => client.destroy() };
    }
  } catch {
    // No running service (or a stale file): open the folder ourselves.
  }
  const dynamo = await startDynaliteThread({ path: join(dataDir, 'dynalite'), port });
  // Written beside and renamed, so the file is never there with a wider mode (writeFileSync's mode applies only to
  // a file it creates) or half written.
  const temporary = `${endpointFile(dataDir)}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ endpoint: dynamo.endpoint, pid: process.pid }), { mode: 0o600 });
  renameSync(temporary, endpointFile(dataDir));
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
