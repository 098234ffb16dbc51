// A report keeps the seed marks of its own time: start stores the scope's latest calibration with the check (on the
// local store, through the API), and reading the report again after a newer calibration gives the same marks; a
// calibration older than 3 intervals leaves every seed's health unknown; a provider flagged keeps its seeds counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSeedHistory } from '../../shared/adapters/dynamo/DynamoSeedHistory';
import type { ControlRun } from '../../shared/calibration/domain/controlRun';
import type { PlacementReport } from '../../shared/domain/placementReport';
import { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

const HOUR = 3_600_000;
const SEEDS = ['acct0@mail.test', 'acct1@mail.test', 'acct2@mail.test'];
let service: TestService & { clock: ManualClock };
let history: DynamoSeedHistory;
let key: string;

const counts = (inbox: number, spam: number) => ({
  total: inbox + spam,
  inbox,
  spam,
  other: 0,
  missing: 0,
  astray: spam,
  unreachable: 0,
});

/** A calibration of the scope `ago` ms before now: `suspect` and the providers flagged as given. */
const calibrated = async (checkId: string, ago: number, run: Partial<ControlRun>) =>
  history.recordRun({
    scope: 'default',
    checkId,
    at: service.clock.now() - ago,
    everyMs: 6 * HOUR,
    byProvider: { imap: counts(2, 1) },
    providerAstray: [],
    seeds: SEEDS.slice(0, 2),
    unreachable: [],
    suspect: [],
    ...run,
  });

const start = async (): Promise<string> => {
  const started = await service.request('POST', '/api/spam-check/start', { authorization: `Bearer ${key}` });
  expect(started.status).toBe(200);
  return (started.body as { check_id: string }).check_id;
};

const report = async (checkId: string) => {
  const response = await service.request('GET', `/api/spam-check/${checkId}/report`, {
    authorization: `Bearer ${key}`,
  });
  expect(response.status).toBe(200);
  const { audit: _audit, ...rest } = response.body as PlacementReport;
  return rest;
};

const health = (body: Omit<PlacementReport, 'audit'>) =>
  body.accounts.map((account) => [account.email, account.seed_health, account.suspect]);

beforeAll(async () => {
  service = await startTestService(new ManualClock(Date.UTC(2026, 10, 22, 12)));
  history = new DynamoSeedHistory(service.client, service.table);
  service.deps.seeds = history;
  await service.addAccounts({}, {}, {});
  key = await service.issueKey('default');
});

afterAll(async () => {
  await service?.close();
});

describe('seed marks kept with the check', () => {
  it('reads the same after a newer calibration, and says where its marks come from', async () => {
    await calibrated('ctlA', HOUR, { suspect: ['acct1@mail.test'] });
    const checkId = await start();
    const first = await report(checkId);
    expect(health(first)).toEqual([
      ['acct0@mail.test', 'ok', false],
      ['acct1@mail.test', 'suspect', true],
      // Not reached by that calibration: nothing is known of it, and it is counted.
      ['acct2@mail.test', 'unknown', false],
    ]);
    expect(first.seed_marks).toEqual({
      state: 'current',
      taken_at: new Date(service.clock.now()).toISOString(),
      calibration: { check_id: 'ctlA', at: new Date(service.clock.now() - HOUR).toISOString() },
    });
    expect(first.summary.by_provider.imap?.control).toMatchObject({ check_id: 'ctlA', astray: 1 });

    service.clock.advance(60_000);
    await calibrated('ctlB', 0, {
      suspect: [],
      byProvider: { imap: counts(0, 3) },
      providerAstray: ['imap'],
    });
    expect(await report(checkId)).toEqual(first);
  });

  it('a provider flagged: its seeds stay counted and the control says so', async () => {
    const body = await report(await start());
    expect(body.summary.by_provider.imap?.control).toMatchObject({ check_id: 'ctlB', provider_astray: true });
    expect(body.accounts.every((account) => account.suspect === false)).toBe(true);
  });

  it('a calibration older than 3 intervals leaves every seed unknown and shows no control', async () => {
    service.clock.advance(18 * HOUR + 1);
    const body = await report(await start());
    expect(body.seed_marks).toMatchObject({ state: 'stale', calibration: { check_id: 'ctlB' } });
    expect(health(body).map(([, state]) => state)).toEqual(['unknown', 'unknown', 'unknown']);
    expect(body.summary.by_provider.imap?.control).toBeNull();
  });
});
