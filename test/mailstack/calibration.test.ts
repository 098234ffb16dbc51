// Calibration on the real loopback mail stack: the first as npm start runs it on CALIBRATION_EVERY, the next through
// `npm run admin` as an operator runs it. The control goes out through the stack's submission port with a login (which
// refuses mail without one), every seed's placement is kept, a seed whose Sieve files the control into Junk becomes
// suspect after 2 of its last 3 calibrations, and a rested seed is not handed out by start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEntry } from '../../scripts/lib/process';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { DynamoCheckStore } from '../../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoShardLayout } from '../../shared/adapters/dynamo/DynamoShardLayout';
import { createSender, parseSmtpUrl } from '../../shared/adapters/smtp/smtp';
import { CONTROL_HEADER } from '../../shared/calibration/domain/controlMessage';
import type { ControlCounts } from '../../shared/calibration/domain/controlRun';
import { composeLocalService } from '../../shared/composition/localService';
import { loadLocalSettings } from '../../shared/config';
import { viewOf } from '../../shared/domain/check';
import { type Clock, systemClock } from '../../shared/domain/clock';
import { ensureTable } from '../../shared/local/bootstrap';
import { LOCAL_TABLE, openLocalStore } from '../../shared/local/localStore';
import { createLogger } from '../../shared/log';
import { startCheck } from '../../shared/usecases/startCheck';
import { SUBMISSION, stackAccount } from '../support/mailStack';
import { fileIntoJunk } from '../support/sieveRule';

const ADMIN = 'shared/main/admin.ts';
/** Each admin command is a process of its own: tsx, the local store, and for calibrate a scanner and a delivery. */
const MINUTE = 60_000;
const SEEDS = ['user010@mail.test', 'user011@mail.test', 'user012@mail.test'];
const WORN = 'user011@mail.test';
/** The control sender's login at the stack's submission port: an account that is no seed. */
const CONTROL_USER = 'user001@mail.test';
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
    by_provider: Record<string, ControlCounts>;
    suspect: string[];
  }[];
  failed: unknown[];
}
const calibrate = async () => JSON.parse(await admin('calibrate', '--json')) as Calibrated;

/**
 * One calibration as npm start runs it with CALIBRATION_EVERY=15m: the local service in this process, over the same
 * data, on a schedule clock whose first 15-minute wait passes at once (the scan loops and the check keep real time).
 */
const scheduledCalibration = async (): Promise<Calibrated> => {
  const waits: number[] = [];
  const scheduleClock: Clock = {
    now: () => systemClock.now(),
    sleep: async (ms, signal) => {
      waits.push(ms);
      if (waits.length > 1) await systemClock.sleep(ms, signal);
    },
  };
  const store = await openLocalStore(env.DATA_DIR as string);
  await ensureTable(store.client, LOCAL_TABLE);
  const service = await composeLocalService({
    settings: loadLocalSettings({ ...env, CALIBRATION_EVERY: '15m' }),
    store,
    configPath: env.LOCAL_CONFIG as string,
    accounts: SEEDS.length,
    log: createLogger('test', 'error', () => undefined),
    scheduleClock,
  });
  try {
    await service.start();
    const deadline = Date.now() + 3 * MINUTE;
    while (!service.schedule?.last && Date.now() < deadline) await systemClock.sleep(200);
  } finally {
    await service.stop();
    await store.close();
  }
  expect(waits[0]).toBe(15 * MINUTE);
  const outcome = service.schedule?.last;
  if (!outcome) throw new Error('the schedule did not calibrate within 3 minutes');
  return {
    calibrated: outcome.calibrated.map(({ run }) => ({
      scope: run.scope,
      check_id: run.checkId,
      by_provider: run.byProvider,
      suspect: run.suspect,
    })),
    failed: outcome.failed,
  };
};

let removeRule: (() => void) | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-calibrate-'));
  env = {
    DATA_DIR: join(dir, 'data'),
    LOCAL_CONFIG: join(dir, 'local.json'),
    CONTROL_SMTP_URL: `smtp://${encodeURIComponent(CONTROL_USER)}@${SUBMISSION.host}:${SUBMISSION.port}`,
    CONTROL_FROM: 'control@sender.test',
  };
  const login = stackAccount(CONTROL_USER).auth;
  if (!('pass' in login)) throw new Error(`${CONTROL_USER} is not a password account`);
  env.CONTROL_SMTP_PASSWORD = login.pass;
  writeFileSync(env.LOCAL_CONFIG as string, JSON.stringify({ accounts: SEEDS.map(stackAccount) }));
  await admin('accounts', 'sync', env.LOCAL_CONFIG as string);
}, MINUTE);

afterAll(() => {
  removeRule?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('calibration on the mail stack: scheduled under npm start, then npm run admin -- calibrate', () => {
  it('the submission port refuses a control sent without a login', async () => {
    const anonymous = createSender(parseSmtpUrl(`smtp://${SUBMISSION.host}:${SUBMISSION.port}`, undefined));
    try {
      await expect(
        anonymous.send({ from: 'control@sender.test', to: SEEDS[0], subject: 'no login', text: 'refused' }),
      ).rejects.toThrow(/refused the message at RCPT: 554/);
    } finally {
      anonymous.close();
    }
  });

  it(
    "records every seed's placement; a seed whose control goes to Junk is suspect after 2 of 3",
    async () => {
      const first = await scheduledCalibration();
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
