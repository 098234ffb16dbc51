// GET /api/spam-check/compare over real HTTP against the local server and dynalite: both checks' rates with their
// intervals, the difference with its interval and the exact McNemar p-value of the same seeds; the scope rule, the 400
// and 404 answers and the read limit, each live check counting as one read. Every response is checked against openapi.yaml by the test service. Then the CLI's
// `compare A B` through the typed client against the same server: the table and --json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompare } from '../../shared/cli/placement/compare';
import { READINGS } from '../../shared/domain/placementComparison';
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
const compare = (a: string, b: string) => `/api/spam-check/compare?a=${a}&b=${b}`;
const NOT_FOUND = { detail: 'Check not found or expired' };

describe('GET /api/spam-check/compare', () => {
  let service: Service;
  let key: string;
  let otherScopeKey: string;
  const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

  beforeAll(async () => {
    service = await startTestService(new ManualClock(T0), { readLimits: { perSecond: 1, burst: 8 } });
    await service.addAccounts(...SEEDS.map((email) => ({ email, provider: 'gmail' })));
    key = await service.issueKey('default');
    otherScopeKey = await service.issueKey('other');
  });
  afterAll(async () => service?.close());

  /** A check whose first `inbox` seeds got the copy in the inbox and the rest in spam. */
  const checkWith = async (inbox: number): Promise<string> => {
    const started = await service.request('POST', '/api/spam-check/start', bearer(key));
    const id = (started.body as { check_id: string }).check_id;
    for (const [index, email] of SEEDS.entries()) {
      const category = index < inbox ? 'primary' : 'spam';
      await service.openChecks.recordResult(id, email, category, service.clock.now(), { folder: category });
    }
    return id;
  };

  it('gives both rates, the difference with its interval, McNemar’s p-value and the reading; each check a read', async () => {
    const a = await checkWith(6);
    const b = await checkWith(0);
    const c = await checkWith(5);
    // A fresh second, so the burst of 8 is whole: the two starts above read nothing.
    service.clock.advance(10_000);
    const strong = await service.request('GET', compare(a, b), bearer(key));
    expect(strong.status).toBe(200);
    const body = strong.body as {
      a: { checks: { check_id: string }[] };
      b: { checks: { check_id: string }[] };
      design: string;
      by_provider: object;
      overall: { inbox: Record<string, unknown> & { interval: { low: number; high: number } } };
    };
    const inbox = body.overall.inbox;
    // The same six seeds, each in the inbox in A and not in B: six discordant seeds one way, 2 * (1/2)^6.
    expect(body.design).toBe('paired');
    expect(inbox).toMatchObject({ difference: -1, test: 'mcnemar_exact', reading: READINGS.real });
    expect(inbox.p_value).toBeCloseTo(2 / 64, 12);
    expect(inbox.min_p).toBeCloseTo(2 / 64, 12);
    // Newcombe: -1 + sqrt(2) * 0.3903, the Wilson upper bound of 0 of 6.
    expect(inbox.interval.high).toBeCloseTo(-1 + Math.SQRT2 * 0.390334, 4);
    expect(inbox.a).toMatchObject({ count: 6, of: 6, rate: 1, high: 1 });
    expect(inbox.b).toMatchObject({ count: 0, of: 6, rate: 0, low: 0 });
    expect([body.a.checks[0]?.check_id, body.b.checks[0]?.check_id]).toEqual([a, b]);
    expect(Object.keys(body.by_provider)).toEqual(['gmail']);

    const weak = await service.request('GET', compare(a, c), bearer(key));
    // 6 of 6 against 5 of 6 on the same seeds: one discordant seed, p = 1, within chance.
    expect((weak.body as { overall: { inbox: Record<string, unknown> } }).overall.inbox).toMatchObject({
      p_value: 1,
      reading: READINGS.chance,
    });
    // Two compares read four checks; the burst of 8 leaves two compares more, then the fifth is refused.
    expect((await service.request('GET', compare(a, b), bearer(key))).status).toBe(200);
    expect((await service.request('GET', compare(a, b), bearer(key))).status).toBe(200);
    const refused = await service.request('GET', compare(a, b), bearer(key));
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toEqual(expect.stringMatching(/^[1-9]\d*$/));
  });

  it('answers 404 for another scope’s check, an unknown one and a malformed one, either side', async () => {
    service.clock.advance(60_000);
    const a = await checkWith(3);
    const other = await service.request('GET', compare(a, a), bearer(otherScopeKey));
    expect(other).toMatchObject({ status: 404, body: NOT_FOUND });
    for (const [x, y] of [
      [a, 'abcdefghijklmnopqrst'],
      ['nope', a],
      [a, '..%2F..%2Fetc'],
    ] as const) {
      service.clock.advance(60_000);
      expect(await service.request('GET', compare(x, y), bearer(key))).toMatchObject({
        status: 404,
        body: NOT_FOUND,
      });
    }
  });

  it('answers 400 when a or b is missing or repeated, or another parameter is given, and 401 without a key', async () => {
    const detail = {
      detail:
        'Query parameters a and b are required, once each: each a comma-separated list of 1 to 50 check ids',
    };
    const fiftyOne = Array.from({ length: 51 }, () => 'abcdefghijklmnopqrst').join(',');
    for (const query of [
      '',
      '?a=x',
      '?b=x',
      '?a=x&a=y&b=z',
      '?a=x&b=y&c=z',
      `?a=${'x'.repeat(3000)}&b=y`,
      '?a=x,,y&b=z',
      `?a=${fiftyOne}&b=y`,
    ]) {
      service.clock.advance(60_000);
      const response = await service.request('GET', `/api/spam-check/compare${query}`, bearer(key));
      expect({ query, status: response.status, body: response.body }).toEqual({
        query,
        status: 400,
        body: detail,
      });
    }
    expect((await service.request('GET', compare('a', 'b'), {})).status).toBe(401);
  });

  it('prints the comparison as a table, or the answer as one JSON object, through the typed client', async () => {
    service.clock.advance(60_000);
    const a = await checkWith(6);
    const b = await checkWith(0);
    service.clock.advance(60_000);
    const run = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCompare(argv, {
        settings: { serviceUrl: service.baseUrl, apiKey: key },
        stdout: (text) => out.push(text),
        stderr: (text) => err.push(text),
      });
      return { code, stdout: out.join('\n'), stderr: err.join('') };
    };
    const table = await run(a, b);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(/^PROVIDER\s+RATE\s+A\s+B\s+B - A \(95%\)\s+P\s+READING$/m);
    expect(table.stdout).toMatch(
      /^Gmail\s+inbox\s+6 of 6 \(100%, 61-100%\)\s+0 of 6 \(0%, 0-39%\)\s+-100 points \(-100 to -\d+\)\s+0\.031\s+the difference is larger than chance/m,
    );
    expect(table.stdout).toContain('design: paired');
    expect(table.stdout).toMatch(
      /^power: to detect 100% -> 80% with 80% power takes \d+ seeds a side, i\.e\. \d+ checks of 6 seeds/m,
    );
    expect(table.stdout).toMatch(/^overall\s+inbox\s+6 of 6/m);
    const json = await run(a, b, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      a: { checks: [{ check_id: a }] },
      b: { checks: [{ check_id: b }] },
    });
    const gone = await run(a, 'abcdefghijklmnopqrst');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('a check is gone (Check not found or expired)');
    expect((await run(a)).code).toBe(2);
  });
});
