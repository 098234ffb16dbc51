// Access and abuse against a real `npm start` process: another scope's check is the same 404 as an unknown id, the
// per-key limits come from START_RATE_LIMIT_PER_MINUTE and MAX_CHECKS_IN_FLIGHT_PER_KEY and answer 429 with
// Retry-After, and a bad value stops the process at start with a message naming the variable.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/freePort';
import { pause } from '../../scripts/lib/poll';
import { runEntry, spawnEntry } from '../../scripts/lib/process';

const MAIN = 'shared/main/start.ts';
const KEYS = { alpha: 'ipk_access-limits-alpha-key-000000', beta: 'ipk_access-limits-beta-key-0000000' };
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-access-'));
  // Nothing listens on this port, so the scanner never reaches a real mailbox.
  const imap = { host: '127.0.0.1', port: await freePort(), secure: false };
  const account = (email: string, scope: string) => ({
    email,
    scope,
    imap,
    auth: { user: email, pass: 'x' },
  });
  const config = {
    accounts: [account('a@mail.test', 'alpha'), account('b@mail.test', 'beta')],
    apiKeys: [
      { key: KEYS.alpha, scope: 'alpha', label: 'alpha' },
      { key: KEYS.beta, scope: 'beta', label: 'beta' },
    ],
  };
  writeFileSync(join(dir, 'local.json'), JSON.stringify(config));
  env = { PORT: '0', DATA_DIR: join(dir, 'data'), LOCAL_CONFIG: join(dir, 'local.json'), LOG_LEVEL: 'error' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

describe('npm start: access and per-key limits', () => {
  it('serves 404 for another scope, and 429 with Retry-After past START_RATE_LIMIT_PER_MINUTE and the in-flight cap', async () => {
    const service = await spawnEntry(
      MAIN,
      { ...env, START_RATE_LIMIT_PER_MINUTE: '3', MAX_CHECKS_IN_FLIGHT_PER_KEY: '2' },
      ready,
    );
    try {
      const base = service.match[1];
      const as = (key: string) => ({ authorization: `Bearer ${key}` });
      const start = (key: string) =>
        fetch(`${base}/api/spam-check/start`, { method: 'POST', headers: as(key) });

      // The rate counts per calendar minute: keep the four starts below inside one.
      const toNextMinute = 60_000 - (Date.now() % 60_000);
      if (toNextMinute < 5000) await pause(toNextMinute);
      const first = await start(KEYS.alpha);
      expect(first.status).toBe(200);
      const { check_id } = (await first.json()) as { check_id: string };
      const theirs = await fetch(`${base}/api/spam-check/${check_id}`, { headers: as(KEYS.beta) });
      const unknown = await fetch(`${base}/api/spam-check/abcdefghijklmnopqrst`, { headers: as(KEYS.beta) });
      expect(theirs.status).toBe(404);
      expect(await theirs.text()).toBe(await unknown.text());

      // Alpha's second check fills its two slots; the third start is refused by the cap, the fourth by the rate.
      expect((await start(KEYS.alpha)).status).toBe(200);
      const capped = await start(KEYS.alpha);
      expect(capped.status).toBe(429);
      const inFlightWait = Number(capped.headers.get('retry-after'));
      expect(inFlightWait).toBeGreaterThan(240);
      expect(inFlightWait).toBeLessThanOrEqual(301);
      expect(await capped.json()).toEqual({
        detail: `Too many checks in flight for this API key; retry after ${inFlightWait} seconds`,
      });
      const limited = await start(KEYS.alpha);
      expect(limited.status).toBe(429);
      const rateWait = Number(limited.headers.get('retry-after'));
      expect(rateWait).toBeGreaterThanOrEqual(1);
      expect(rateWait).toBeLessThanOrEqual(60);
      expect(await limited.json()).toEqual({
        detail: `Too many checks started with this API key; retry after ${rateWait} seconds`,
      });
      // Beta is unaffected.
      expect((await start(KEYS.beta)).status).toBe(200);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('refuses a bad limit at start with a message naming the variable', async () => {
    for (const [name, value] of [
      ['START_RATE_LIMIT_PER_MINUTE', '-5'],
      ['MAX_CHECKS_IN_FLIGHT_PER_KEY', 'many'],
    ] as const) {
      const run = await runEntry(MAIN, [], { ...env, DATA_DIR: join(dir, `bad-${name}`), [name]: value });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(name);
    }
  });
});
