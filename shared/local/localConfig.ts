// Owns the local config file (config/local.json): test accounts with their credentials, and optional API keys.
// On AWS the same credentials live in Secrets Manager; this file stands in for it on one machine.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { type LocalConfig, parseLocalConfig } from '../adapters/credentials/accountEntrySchema';

export {
  type AccountEntry,
  accountEntrySchema,
  type LocalConfig,
} from '../adapters/credentials/accountEntrySchema';

export const readLocalConfig = (path: string): LocalConfig =>
  parseLocalConfig(readFileSync(path, 'utf8'), path);

/**
 * Makes sure the config file exists: on a first run it starts as a copy of the committed example (the loopback
 * mail stack's accounts), so a fresh clone runs at once and `npm run admin -- accounts …` edits the same file.
 * An existing file that others may read (it holds passwords) is closed to them.
 */
export const ensureLocalConfig = (path: string, example: string): boolean => {
  if (existsSync(path)) {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return false;
  }
  mkdirSync(dirname(path), { recursive: true });
  copyFileSync(example, path);
  chmodSync(path, 0o600);
  return true;
};
