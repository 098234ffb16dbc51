// What npm start trusts on this machine: its data folder (the table, and the endpoint of a store that answers any
// request) is for its user only, and the config file is the one source of its API keys, so a key deleted from it
// stops working at the next start.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnEntry } from '../../scripts/lib/process';
import { configKeysLedger } from '../../shared/local/configKeys';
import { openLocalStore } from '../../shared/local/localStore';

const MAIN = 'shared/main/start.ts';
const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)/;
const KEEP = 'ipk_local-trust-key-that-stays-0123456789';
const DROP = 'ipk_local-trust-key-that-goes-9876543210';
const modeOf = (path: string) => statSync(path).mode & 0o777;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-trust-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the data folder', () => {
  it('is made 0700, made so again if it was wider, and its endpoint file is 0600', async () => {
    const fresh = join(dir, 'fresh');
    const wide = join(dir, 'wide');
    mkdirSync(wide, { mode: 0o755 });
    // As an older version left it: world-readable, with a world-readable endpoint file of a store no longer there.
    writeFileSync(join(wide, 'dynalite.json'), JSON.stringify({ endpoint: 'http://127.0.0.1:9' }), {
      mode: 0o644,
    });
    for (const dataDir of [fresh, wide]) {
      const store = await openLocalStore(dataDir);
      try {
        expect(store.owned).toBe(true);
        expect(modeOf(dataDir).toString(8)).toBe('700');
        expect(modeOf(join(dataDir, 'dynalite.json')).toString(8)).toBe('600');
        expect(JSON.parse(readFileSync(join(dataDir, 'dynalite.json'), 'utf8')).endpoint).toBe(
          store.endpoint,
        );
      } finally {
        await store.close();
      }
    }
  });
});

describe('API keys from the local config', () => {
  it('a key removed from the config is revoked on the next start; the one kept still works; the file is 0600', async () => {
    const configPath = join(dir, 'local.json');
    const env = {
      PORT: '0',
      DATA_DIR: join(dir, 'data'),
      LOCAL_CONFIG: configPath,
      LOG_LEVEL: 'info',
      AUTH_CACHE_TTL_MS: '0',
    };
    const writeConfig = (keys: string[]) =>
      writeFileSync(
        configPath,
        JSON.stringify({ accounts: [], apiKeys: keys.map((key) => ({ key, scope: 'default' })) }),
        { mode: 0o600 },
      );
    /** The status GET of an unknown check answers with `key`: 404 for a working key, 401 for any other. */
    const statusWith = async (baseUrl: string, key: string) =>
      (
        await fetch(`${baseUrl}/api/spam-check/00000000-0000-4000-8000-000000000000`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).status;

    writeConfig([KEEP, DROP]);
    chmodSync(configPath, 0o644);
    const first = await spawnEntry(MAIN, env, ready);
    try {
      expect(await statusWith(first.match[1] ?? '', KEEP)).toBe(404);
      expect(await statusWith(first.match[1] ?? '', DROP)).toBe(404);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    expect(modeOf(configKeysLedger(env.DATA_DIR)).toString(8)).toBe('600');
    // The config holds passwords: a copy others could read is closed to them at start.
    expect(modeOf(configPath).toString(8)).toBe('600');

    writeConfig([KEEP]);
    const second = await spawnEntry(MAIN, env, ready);
    try {
      expect(await statusWith(second.match[1] ?? '', KEEP)).toBe(404);
      expect(await statusWith(second.match[1] ?? '', DROP)).toBe(401);
      expect(second.output()).toContain('revoked the API keys removed from the local config');
      // The log names the key by its id, never the key.
      expect(second.output()).not.toContain(DROP.slice(4, 20));
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 90_000);
});
