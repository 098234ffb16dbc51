// `npm start` stopped in the middle of a check, once with SIGTERM and once with SIGKILL, while mail keeps arriving
// at the real loopback mail stack; started again on the same DATA_DIR it completes the check: the results recorded
// before the stop are kept, the copies that arrived while it was down are found, and no account counts twice.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../../scripts/lib/poll';
import { spawnEntry } from '../../scripts/lib/process';
import type { CheckView } from '../../shared/domain/check';
import { GTUBE, GTUBE_CATEGORIES, sendOnce, stackAccount } from '../support/mailStack';

const MAIN = 'shared/main/start.ts';
const NAMES = ['archive', 'inbox', 'junk', 'promo', 'trash'];
const API_KEY = 'ipk_restart-mid-check-test-key-0123456789';

const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

/** npm start as a process, with its base address and the API key the config gives it. */
const startService = async (env: Record<string, string>) => {
  const started = await spawnEntry(MAIN, env, ready);
  const baseUrl = started.match[1];
  return {
    ...started,
    request: async (method: string, path: string): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      return { status: response.status, body: await response.json() };
    },
  };
};
type Service = Awaited<ReturnType<typeof startService>>;

let dir: string;
let configPath: string;
const running: Service[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-restart-'));
  configPath = join(dir, 'local.json');
  const accounts = NAMES.map((name) => ({ ...stackAccount(`${name}@mail.test`), scope: 'default' }));
  writeFileSync(configPath, JSON.stringify({ accounts, apiKeys: [{ key: API_KEY, scope: 'default' }] }), {
    mode: 0o600,
  });
});

afterAll(async () => {
  for (const service of running) await service.stop('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const getCheck = async (service: Service, checkId: string): Promise<CheckView> => {
  const response = await service.request('GET', `/api/spam-check/${checkId}`);
  expect(response.status).toBe(200);
  const body = response.body as CheckView;
  // Every read, not just the last: `received` always counts exactly the accounts that have a category.
  expect(body.received).toBe(body.results.filter((result) => result.category !== 'pending').length);
  return body;
};

const checkUntil = (service: Service, checkId: string, done: (body: CheckView) => boolean, limitMs: number) =>
  pollUntil(() => getCheck(service, checkId), done, { timeoutMs: limitMs });

describe.each<NodeJS.Signals>(['SIGTERM', 'SIGKILL'])('npm start stopped with %s mid-check', (signal) => {
  it('completes the check after a restart on the same DATA_DIR, every account once', async () => {
    const env = {
      PORT: '0',
      DATA_DIR: join(dir, `data-${signal}`),
      LOCAL_CONFIG: configPath,
      LOG_LEVEL: 'warn',
      // A lease TTL (5 intervals) longer than a restart takes, so the SIGKILL case restarts while its dead lease is held.
      SCAN_INTERVAL_MS: '1000',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    };
    const first = await startService(env);
    running.push(first);
    const started = await first.request('POST', '/api/spam-check/start');
    expect(started.status).toBe(200);
    const { check_id, accounts } = started.body as { check_id: string; accounts: string[] };
    expect(accounts).toHaveLength(NAMES.length);
    const early = accounts.slice(0, 2);
    const late = accounts.slice(2);

    // The first accounts receive their copy and are recorded; then the service goes away.
    await sendOnce(early, { subject: `restart ${signal} early`, text: `${GTUBE}\n` });
    const beforeStop = await checkUntil(first, check_id, (body) => body.received >= early.length, 20_000);
    expect(beforeStop).toMatchObject({ status: 'pending', received: early.length, total: NAMES.length });
    const stoppedAt = Date.now();
    const code = await first.stop(signal);
    // SIGTERM is a graceful stop (exit 0); SIGKILL leaves no chance to release the lease or close the store.
    if (signal === 'SIGTERM') expect(code).toBe(0);
    else expect(first.child.signalCode).toBe('SIGKILL');

    // The rest arrive while nothing is running.
    await sendOnce(late, { subject: `restart ${signal} late`, text: `${GTUBE}\n` });
    const second = await startService(env);
    running.push(second);
    const restartedAt = Date.now();
    // What was recorded before the stop is still there.
    const afterRestart = await getCheck(second, check_id);
    expect(afterRestart.received).toBeGreaterThanOrEqual(early.length);

    const body = await checkUntil(second, check_id, (current) => current.status !== 'pending', 30_000);
    const completedAt = Date.now();
    expect(body.status).toBe('complete');
    expect(body.received).toBe(NAMES.length);
    expect(body.total).toBe(NAMES.length);
    expect(Object.fromEntries(body.results.map((result) => [result.email, result.category]))).toEqual(
      GTUBE_CATEGORIES,
    );
    expect(await second.stop('SIGTERM')).toBe(0);
    // Neither run printed a failure: no crash, no unhandled rejection, no failed scan loop.
    for (const output of [first.output(), second.output()]) {
      expect(output).not.toMatch(/"level":"error"|Unhandled|npm start failed/);
    }

    console.info(
      JSON.stringify({
        test: 'npm start restarted mid-check',
        signal,
        recordedBeforeStop: beforeStop.received,
        downMs: restartedAt - stoppedAt,
        restartToCompleteMs: completedAt - restartedAt,
        received: body.received,
        total: body.total,
      }),
    );
  }, 60_000);
});
