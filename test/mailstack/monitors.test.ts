// A monitor on the real loopback mail stack, as an operator sets it up and npm start runs it: `admin monitors
// create` stores a message (sealed) with a 10-second schedule through the stack's submission port with a login; the
// local service runs it twice on that schedule, each run an ordinary check tagged with the monitor (listed by the
// archive under the monitor's name), each publishing its counts per provider to the in-process metrics sink and
// printing one line; `admin monitors status` then shows the alarm's judgement (too few runs to judge yet).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEntry } from '../../scripts/lib/process';
import { DynamoMonitorStore } from '../../shared/adapters/dynamo/DynamoMonitorStore';
import { DynamoReportArchive } from '../../shared/adapters/dynamo/DynamoReportArchive';
import { composeLocalService } from '../../shared/composition/localService';
import { loadLocalSettings } from '../../shared/config';
import { systemClock } from '../../shared/domain/clock';
import { ensureTable } from '../../shared/local/bootstrap';
import { LOCAL_TABLE, openLocalStore } from '../../shared/local/localStore';
import { createLogger } from '../../shared/log';
import { SUBMISSION, stackAccount } from '../support/mailStack';

const ADMIN = 'shared/main/admin.ts';
const MINUTE = 60_000;
const SEEDS = ['user010@mail.test', 'user011@mail.test', 'user012@mail.test'];
/** The monitor's sender login at the stack's submission port: an account that is no seed. */
const SENDER = 'user001@mail.test';
const MESSAGE = [
  'From: Welcome <user001@mail.test>',
  'To: Customer <customer@example.test>',
  'Subject: Welcome to the monitor test',
  'Message-ID: <monitor-test@mail.test>',
  '',
  'Hello, and welcome.',
  '',
].join('\r\n');
let dir: string;
let env: Record<string, string>;

const admin = async (...args: string[]) => {
  const run = await runEntry(ADMIN, args, env);
  if (run.code !== 0 && run.code !== 1)
    throw new Error(`admin ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-monitors-'));
  const login = stackAccount(SENDER).auth;
  if (!('pass' in login)) throw new Error(`${SENDER} is not a password account`);
  env = {
    DATA_DIR: join(dir, 'data'),
    LOCAL_CONFIG: join(dir, 'local.json'),
    SMTP_PASSWORD: login.pass,
  };
  writeFileSync(env.LOCAL_CONFIG as string, JSON.stringify({ accounts: SEEDS.map(stackAccount) }));
  writeFileSync(join(dir, 'welcome.eml'), MESSAGE);
  await admin('accounts', 'sync', env.LOCAL_CONFIG as string);
  const via = `smtp://${encodeURIComponent(SENDER)}@${SUBMISSION.host}:${SUBMISSION.port}`;
  await admin(
    'monitors',
    'create',
    '--scope',
    'default',
    '--name',
    'welcome',
    '--eml',
    join(dir, 'welcome.eml'),
    '--every',
    '10s',
    '--send-via',
    via,
  );
}, MINUTE);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a monitor on the local mail stack', () => {
  it(
    'runs twice on its schedule, each run a tagged check, counted, published and judged',
    async () => {
      const store = await openLocalStore(env.DATA_DIR as string);
      await ensureTable(store.client, LOCAL_TABLE);
      const printed: string[] = [];
      const write = process.stdout.write.bind(process.stdout);
      process.stdout.write = ((chunk: string | Uint8Array) => {
        printed.push(String(chunk));
        return true;
      }) as typeof process.stdout.write;
      const service = await composeLocalService({
        settings: loadLocalSettings(env),
        store,
        configPath: env.LOCAL_CONFIG as string,
        accounts: SEEDS.length,
        log: createLogger('test', 'error', () => undefined),
      });
      const monitors = new DynamoMonitorStore(store.client, LOCAL_TABLE);
      /** The first two runs (the list is newest first), whose reports the archive must hold. */
      let waitedFor: string[] = [];
      try {
        await service.start();
        const deadline = Date.now() + 3 * MINUTE;
        while ((await monitors.runs('default', 'welcome', 5)).length < 2 && Date.now() < deadline)
          await systemClock.sleep(500);
        // A run ends when its check completes; the archive keeps the check's report once the scanner settles it,
        // a tick later: wait for both runs' reports before the service stops.
        const archived = async () => {
          const ids = (await monitors.runs('default', 'welcome', 5)).slice(-2).map((run) => run.checkId);
          waitedFor = ids;
          const listed = await new DynamoReportArchive(store.client, LOCAL_TABLE).list(
            'default',
            systemClock.now(),
            10,
            undefined,
            'welcome',
          );
          return ids.every((id) => listed.checks.some((entry) => entry.check_id === id));
        };
        while (!(await archived()) && Date.now() < deadline) await systemClock.sleep(500);
      } finally {
        await service.stop();
        process.stdout.write = write;
      }
      const runs = await monitors.runs('default', 'welcome', 5);
      expect(runs.length).toBeGreaterThanOrEqual(2);
      for (const run of runs.slice(0, 2)) {
        // The stack files ordinary mail in the inbox: every seed's copy arrived and was counted, whatever its provider.
        const counts = Object.values(run.byProvider);
        expect(counts.reduce((sum, c) => sum + c.total, 0)).toBe(SEEDS.length);
        expect(counts.reduce((sum, c) => sum + c.inbox, 0)).toBe(SEEDS.length);
        expect(counts.reduce((sum, c) => sum + c.missing, 0)).toBe(0);
      }
      const history = await new DynamoReportArchive(store.client, LOCAL_TABLE).list(
        'default',
        systemClock.now(),
        10,
        undefined,
        'welcome',
      );
      expect(waitedFor).toHaveLength(2);
      expect(history.checks.map((entry) => entry.check_id)).toEqual(expect.arrayContaining(waitedFor));
      const inbox = service.monitors.sink.points.filter((point) => point.spec.name === 'MonitorInbox');
      expect(inbox.length).toBeGreaterThanOrEqual(2);
      for (const point of inbox)
        expect(Object.keys(point.dimensions).sort()).toEqual(['Monitor', 'Provider']);
      expect(inbox.reduce((sum, point) => sum + point.value, 0)).toBeGreaterThanOrEqual(2 * SEEDS.length);
      expect(
        printed.filter((line) => line.startsWith('monitor default/welcome run ')).length,
      ).toBeGreaterThanOrEqual(2);
      await store.close();

      const status = await admin('monitors', 'status', 'welcome', '--scope', 'default');
      expect(status).toContain('monitor welcome (active)');
      expect(status).toMatch(/: too few runs to judge \(\d+ of \d+ runs\)/);
    },
    5 * MINUTE,
  );
});
