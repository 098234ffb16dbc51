// The report archive over real HTTP against the local server and dynalite: settling archives each ended check's
// report (composition/archivingChecks.ts, as every scanner settles); GET /api/spam-check/history lists the scope's,
// newest first, paged; the check still answers 404 after 10 minutes while compare reads its archived report; both
// forget it after REPORT_RETENTION_DAYS, and a retention of 0 keeps nothing. Responses are checked against openapi.yaml.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoReportArchive } from '../../shared/adapters/dynamo/DynamoReportArchive';
import { archiveDepsOf, archivingSettle } from '../../shared/composition/archivingChecks';
import { READINGS } from '../../shared/domain/placementComparison';
import { DAY_MS } from '../../shared/domain/reportArchive';
import { createLogger } from '../../shared/log';
import { startCheck } from '../../shared/usecases/startCheck';
import { ManualClock } from '../support/manualClock';
import { startTestService, type TestService } from '../support/testService';

type Service = TestService & { clock: ManualClock };
const T0 = Date.UTC(2026, 10, 26, 12, 0, 0);
const SEEDS = [
  's1@mail.test',
  's2@mail.test',
  's3@mail.test',
  's4@mail.test',
  's5@mail.test',
  's6@mail.test',
];
const quiet = createLogger('test', 'error', () => undefined);

interface Page {
  checks: { check_id: string; status: string; inbox: { count: number; of: number } }[];
  next: string | null;
}

describe('the report archive and GET /api/spam-check/history', () => {
  let service: Service;
  let key: string;
  let otherKey: string;
  const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
  const history = async (query = '', as = key) =>
    service.request('GET', `/api/spam-check/history${query}`, bearer(as));

  beforeAll(async () => {
    service = await startTestService(new ManualClock(T0));
    service.deps.archive = new DynamoReportArchive(service.client, service.table);
    await service.addAccounts(...SEEDS.map((email) => ({ email, provider: 'gmail' })));
    await service.addAccounts({ email: 'o1@mail.test', provider: 'yahoo', scope: 'other' });
    key = await service.issueKey('default');
    otherKey = await service.issueKey('other');
  });
  afterAll(async () => service?.close());

  const checkWith = async (inbox: number, as = key): Promise<string> => {
    const started = await service.request('POST', '/api/spam-check/start', bearer(as));
    const id = (started.body as { check_id: string }).check_id;
    const seeds = as === key ? SEEDS : ['o1@mail.test'];
    for (const [index, email] of seeds.entries()) {
      const category = index < inbox ? 'primary' : 'spam';
      await service.openChecks.recordResult(id, email, category, service.clock.now(), { folder: category });
    }
    service.clock.advance(1000);
    return id;
  };

  it('keeps each settled check, lists the scope’s newest first and paged, and compares past the 10 minutes', async () => {
    const a = await checkWith(6);
    const b = await checkWith(0);
    const theirs = await checkWith(1, otherKey);
    const settling = archivingSettle(
      service.openChecks,
      archiveDepsOf(service.client, service.table, 30),
      quiet,
    );
    expect((await settling.settle(service.clock.now())).length).toBe(3);

    const all = await history();
    expect(all.status).toBe(200);
    expect((all.body as Page).checks.map((check) => check.check_id)).toEqual([b, a]);
    expect((all.body as Page).checks[1]).toMatchObject({ status: 'complete', inbox: { count: 6, of: 6 } });
    const first = (await history('?limit=1')).body as Page;
    expect(first.checks.map((check) => check.check_id)).toEqual([b]);
    expect(first.next).toEqual(expect.any(String));
    const second = (await history(`?limit=1&cursor=${first.next}`)).body as Page;
    expect(second.checks.map((check) => check.check_id)).toEqual([a]);
    const third = (await history(`?limit=1&cursor=${second.next}`)).body as Page;
    expect(third).toEqual({ checks: [], next: null });
    expect(((await history('', otherKey)).body as Page).checks.map((check) => check.check_id)).toEqual([
      theirs,
    ]);

    service.clock.advance(11 * 60_000);
    expect((await service.request('GET', `/api/spam-check/${a}`, bearer(key))).status).toBe(404);
    const compared = await service.request('GET', `/api/spam-check/compare?a=${a}&b=${b}`, bearer(key));
    expect(compared.status).toBe(200);
    expect(compared.body).toMatchObject({ design: 'paired', overall: { inbox: { reading: READINGS.real } } });
    const series = await service.request('GET', `/api/spam-check/compare?a=${a},${b}&b=${b}`, bearer(key));
    expect(series.body).toMatchObject({
      overall: { inbox: { a: { count: 6, of: 12 }, test: 'exact_conditional_by_seed' } },
    });
    // Another scope's archived check is the same 404 as an unknown one.
    const foreign = await service.request('GET', `/api/spam-check/compare?a=${a}&b=${theirs}`, bearer(key));
    expect(foreign).toMatchObject({ status: 404, body: { detail: 'Check not found or expired' } });

    service.clock.advance(31 * DAY_MS);
    expect(((await history()).body as Page).checks).toEqual([]);
    expect((await service.request('GET', `/api/spam-check/compare?a=${a}&b=${b}`, bearer(key))).status).toBe(
      404,
    );
  });

  it('keeps nothing with a retention of 0', async () => {
    const c = await checkWith(3);
    const settling = archivingSettle(
      service.openChecks,
      archiveDepsOf(service.client, service.table, 0),
      quiet,
    );
    expect((await settling.settle(service.clock.now())).map((check) => check.checkId)).toEqual([c]);
    expect(((await history()).body as Page).checks).toEqual([]);
  });

  it('lists a monitor’s runs under ?monitor= (an addition), and them only', async () => {
    const started = await startCheck(
      { accounts: service.deps.accounts, checks: service.deps.checks, clock: service.clock },
      { keyId: 'monitor', scope: 'default' },
      { monitor: 'welcome' },
    );
    service.clock.advance(1000);
    const plain = await checkWith(2);
    for (const email of SEEDS)
      await service.openChecks.recordResult(started.check_id, email, 'primary', service.clock.now(), {
        folder: 'INBOX',
      });
    service.clock.advance(1000);
    const settling = archivingSettle(
      service.openChecks,
      archiveDepsOf(service.client, service.table, 30),
      quiet,
    );
    await settling.settle(service.clock.now());
    const runs = (await history('?monitor=welcome')).body as Page;
    expect(runs.checks.map((check) => check.check_id)).toEqual([started.check_id]);
    expect(runs.checks[0]).toMatchObject({ monitor: 'welcome', inbox: { count: 6, of: 6 } });
    const all = ((await history()).body as Page).checks.map((check) => check.check_id);
    expect(all.slice(0, 2)).toEqual([plain, started.check_id]);
    expect(((await history('?monitor=other')).body as Page).checks).toEqual([]);
    expect(((await history('?monitor=welcome', otherKey)).body as Page).checks).toEqual([]);
  });

  it('answers 400 for a bad limit, a repeated or unknown parameter, or a cursor it did not give', async () => {
    const detail =
      'Query parameters: limit (1 to 100), cursor (the next of the page before) and monitor (a monitor name), each at most once';
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=x',
      '?limit=1&limit=2',
      '?page=2',
      '?monitor=Welcome',
      '?monitor=a&monitor=b',
      `?cursor=${'x'.repeat(200)}`,
    ])
      expect(await history(query)).toMatchObject({ status: 400, body: { detail } });
    const forged = Buffer.from('999999999999999#aaaaaaaaaaaaaaaaaaa!').toString('base64url');
    expect(await history(`?cursor=${forged}`)).toMatchObject({
      status: 400,
      body: { detail: 'cursor is not one this service gave' },
    });
    expect((await service.request('GET', '/api/spam-check/history', {})).status).toBe(401);
  });
});
