// Owns where the CDK app finds the project on disk: the lock file that fixes the bundling root, and the handlers.
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const LOCK_FILE = fileURLToPath(new URL('../package-lock.json', import.meta.url));

/** The handler module of one Lambda, `functions/<name>.ts`; each exports `handler`. */
export const functionEntry = (
  name:
    | 'start'
    | 'get'
    | 'fallback'
    | 'scan'
    | 'deployProbe'
    | 'deployBake'
    | 'webhook'
    | 'calibrate'
    | 'monitors',
): string => fileURLToPath(new URL(`../functions/${name}.ts`, import.meta.url));
