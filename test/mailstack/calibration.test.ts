// Calibration on the real loopback mail stack, through `npm run admin` as an operator runs it: the control message goes
// out through the stack's SMTP port (it has no submission port; Postfix on 2525 takes mail from loopback as a
// submission server would), every seed's placement is kept, a seed whose Sieve files the control into Junk becomes
// suspect after 2 of its last 3 calibrations, and a rested seed is not handed out by start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEntry } from '../../scripts/lib/process';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoShardLayout } from '../../shared/adapters/dynamo/DynamoShardLayout';
import { viewOf } from '../../shared/domain/check';
import { systemClock } from '../../shared/domain/clock';
import { CONTROL_HEADER } from '../../shared/domain/controlMessage';
import { ensureTable } from '../../shared/local/bootstrap';
import { LOCAL_TABLE, openLocalStore } from '../../shared/local/localStore';
import { startCheck } from '../../shared/usecases/startCheck';
import { SMTP, stackAccount } from '../support/mailStack';
import { fileIntoJunk } from '../support/sieveRule';

const ADMIN = 'shared/cli/admin.ts';
/** Each admin command is a process of its own: tsx, the local store, and for calibrate a scanner and a delivery. */
const MINUTE = 60_000;
const SEEDS = ['user010@mail.test', 'user011@mail.test', 'user012@mail.test'];
const WORN = 'user011@mail.test';
let dir: string;
let env: Record<string, string>;

const admin = async (...args: string[]) => {
  const run = await runEntry(ADMIN, args, env);
  if (run.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
};

interface SeedHealth {
  email: string;
  suspect: boolean;
  rested: boolean;
  last_delivery_at: string | null;
  last_login_at: string | null;
  history: { check_id: string; placement: string; category: string }[];
}
const health = async () => JSON.parse(await admin('accounts', 'health', '--json')) as SeedHealth[];
const seed = (seeds: SeedHealth[], email: string) => seeds.find((entry) => entry.email === email);

interface Calibrated {
  calibrated: {
    scope: string;
    check_id: string;
    by_provider: Record<string, Record<string, number>>;
    suspect: string[];
  }[];
  failed: unknown[];
}
const calibrate = async () => JSON.parse(await admin('calibrate', '--json')) as Calibrated;

let removeRule: (() => void) | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-calibrate-'));
  env = {
    DATA_DIR: join(dir, 'data'),
    LOCAL_CONFIG: join(dir, 'local.json'),
    CONTROL_SMTP_URL: `smtp://${SMTP.host}:${SMTP.port}`,
    CONTROL_FROM: 'control@sender.test',
  };
  writeFileSync(env.LOCAL_CONFIG as string, JSON.stringify({ accounts: SEEDS.map(stackAccount) }));
  await admin('accounts', 'sync', env.LOCAL_CONFIG as string);
}, MINUTE);

afterAll(() => {
  removeRule?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('npm run admin -- calibrate on the mail stack', () => {
  it(
    "records every seed's placement; a seed whose control goes to Junk is suspect after 2 of 3",
    async () => {
      const first = await calibrate();
      expect(first.failed).toEqual([]);
      expect(first.calibrated).toHaveLength(1);
      expect(first.calibrated[0]).toMatchObject({
        scope: 'default',
        by_provider: { imap: { total: 3, inbox: 3, spam: 0, missing: 0, other: 0 } },
        suspect: [],
      });

      // From now on the stack's Sieve files the control (and only the control) into Junk at one seed.
      removeRule = fileIntoJunk(WORN, `exists "${CONTROL_HEADER}"`);
      const second = await calibrate();
      expect(second.calibrated[0]).toMatchObject({
        by_provider: { imap: { total: 3, inbox: 2, spam: 1 } },
        suspect: [],
      });
      expect(seed(await health(), WORN)).toMatchObject({ suspect: false });

      const third = await calibrate();
      expect(third.calibrated[0]).toMatchObject({ suspect: [WORN] });
      const seeds = await health();
      for (const email of SEEDS) {
        const record = seed(seeds, email);
        expect(record?.history.map((entry) => entry.check_id)).toEqual(
          [third, second, first].map((run) => run.calibrated[0]?.check_id),
        );
        expect(record?.last_delivery_at).toEqual(expect.any(String));
        expect(record?.last_login_at).toEqual(expect.any(String));
      }
      expect(seed(seeds, WORN)).toMatchObject({ suspect: true, rested: false });
      expect(seed(seeds, WORN)?.history.map((entry) => entry.placement)).toEqual(['spam', 'spam', 'inbox']);
      expect(seed(seeds, 'user010@mail.test')).toMatchObject({ suspect: false });
      expect(seed(seeds, 'user010@mail.test')?.history.map((entry) => entry.placement)).toEqual([
        'inbox',
        'inbox',
        'inbox',
      ]);
      const table = await admin('accounts', 'health');
      expect(table).toMatch(/user011@mail\.test\s+imap\s+suspect\s+spam spam inbox/);
    },
    4 * MINUTE,
  );

  it(
    'a rested seed is not handed out by start, and the check counts only the seeds it handed out',
    async () => {
      expect(await admin('accounts', 'rest', WORN)).toContain(`rested ${WORN}`);
      expect(seed(await health(), WORN)).toMatchObject({ rested: true });
      const store = await openLocalStore(env.DATA_DIR as string);
      try {
        await ensureTable(store.client, LOCAL_TABLE);
        const checks = new DynamoCheckStore(
          store.client,
          LOCAL_TABLE,
          new DynamoShardLayout(store.client, LOCAL_TABLE),
        );
        const deps = {
          accounts: new DynamoAccountRegistry(store.client, LOCAL_TABLE),
          checks,
          clock: systemClock,
        };
        const started = await startCheck(deps, { keyId: 'test', scope: 'default' });
        expect(started.accounts.map((address) => address.replace(/\+[^@]*/, ''))).toEqual([
          'user010@mail.test',
          'user012@mail.test',
        ]);
        const check = await checks.get(started.check_id);
        expect(check && viewOf(check, systemClock.now()).total).toBe(2);
      } finally {
        await store.close();
      }
      await admin('accounts', 'unrest', WORN);
      expect(seed(await health(), WORN)).toMatchObject({ rested: false });
    },
    2 * MINUTE,
  );
});
