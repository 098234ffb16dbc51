// Owns the local store's item key (npm start, the admin CLI on the local store): 32 random bytes in a file of the
// data directory, readable by its owner only, made the first time something is sealed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newItemKey } from '../adapters/credentials/credentialItem';

const FILE = 'item-key';

export const localItemKey = async (dataDir: string): Promise<string> => {
  const path = join(dataDir, FILE);
  try {
    // 'wx': two processes starting at once cannot both write; the loser reads the winner's key.
    writeFileSync(path, newItemKey(), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
  return readFileSync(path, 'utf8').trim();
};
