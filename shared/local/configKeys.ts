// Owns revoking, at start, the API keys the local config file supplied before and no longer does: the file is the
// one source of npm start's keys, so deleting a key from it must stop the key working, not only stop re-adding it.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashApiKey, keyIdOf } from '../domain/apiKey';
import { parseJsonText } from '../domain/jsonText';
import type { LocalConfig } from './localConfig';

/**
 * The ledger of the keys the config supplied at the last start (ids only: hash prefixes, never a key), kept in the
 * data folder beside the table it describes. Keys issued on a first run or by `npm run admin -- keys create` were
 * never in the config, so they are not in it and are never revoked here.
 */
export const configKeysLedger = (dataDir: string) => join(dataDir, 'config-keys.json');

const readLedger = (path: string): string[] => {
  if (!existsSync(path)) return [];
  const read = parseJsonText(readFileSync(path, 'utf8'), path) as { keyIds?: unknown };
  return Array.isArray(read.keyIds) ? read.keyIds.filter((id): id is string => typeof id === 'string') : [];
};

/** Revokes each key the ledger names that the config no longer holds, then records the config's keys; returns the revoked ids. */
export const revokeRemovedConfigKeys = async (
  keys: { revoke(keyId: string): Promise<boolean> },
  config: LocalConfig,
  ledgerPath: string,
): Promise<string[]> => {
  const current = [...new Set(config.apiKeys.map(({ key }) => keyIdOf(hashApiKey(key))))];
  const keep = new Set(current);
  const revoked: string[] = [];
  for (const keyId of readLedger(ledgerPath)) {
    if (keep.has(keyId)) continue;
    // False when the data folder no longer holds it: nothing to revoke.
    if (await keys.revoke(keyId)) revoked.push(keyId);
  }
  // Written after the revocations: a start that fails between them tries them again next time.
  const temporary = `${ledgerPath}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ keyIds: current })}\n`, { mode: 0o600 });
  renameSync(temporary, ledgerPath);
  return revoked;
};
