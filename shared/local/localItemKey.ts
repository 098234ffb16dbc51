// Owns the local store's sealing key (npm start, the admin CLI on the local store): 32 random bytes in a file of the
// data directory, readable by its owner only, made the first time; it wraps each value's data key as KMS does on AWS.
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { itemKeyBytes } from '../adapters/credentials/credentialItem';
import { ItemKeySealer } from '../adapters/credentials/itemKeySealer';
import { EnvelopeSealer } from '../adapters/keys/EnvelopeSealer';
import { fileKeyring } from '../adapters/keys/keyrings';
import type { Sealer } from '../domain/sealer';

const FILE = 'item-key';

/** The key file's text (base64 of 32 bytes), made the first time. */
export const localItemKey = (dataDir: string): string => {
  const path = join(dataDir, FILE);
  try {
    // 'wx': two processes starting at once cannot both write; the loser reads the winner's key.
    writeFileSync(path, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
  return readFileSync(path, 'utf8').trim();
};

/** The local store's sealer: the same envelope format as on AWS, still opening what the key file sealed directly. */
export const localSealer = (dataDir: string): Sealer => {
  const key = localItemKey(dataDir);
  const before = new ItemKeySealer(async () => key);
  return new EnvelopeSealer(fileKeyring(itemKeyBytes(key)), undefined, (sealed, context) =>
    before.open(sealed, context.item),
  );
};
