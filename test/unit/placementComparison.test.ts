// Series of reports compared (shared/domain/placementComparison.ts) on the cases of issue 43, and the client's check of
// the answer (shared/client/compareResponse.ts): each case's numbers worked by hand or by test/unit/statisticsReference.py.
import { describe, expect, it } from 'vitest';
import { comparisonProblem } from '../../shared/client';
import { compareReports, compareSeries, READINGS } from '../../shared/domain/placementComparison';
import { reportOf, seedsAt } from '../support/seriesReports';

describe('compareSeries', () => {
  it('says "too few seeds to tell" for 3 of 3 against 0 of 3, with min_p 0.1 and the interval', () => {
    const comparison = compareReports(
      reportOf('a', seedsAt('gmail', 3, 3)),
      reportOf('b', seedsAt('gmail', 3, 0)),
    );
    const inbox = comparison.overall.inbox;
    // Paired: 3 discordant seeds all one way, 2 * (1/2)^3.
    expect(comparison.design).toBe('paired');
    expect(inbox).toMatchObject({ difference: -1, test: 'mcnemar_exact', reading: READINGS.tooFew });
    expect(inbox.p_value).toBeCloseTo(0.25, 12);
    expect(inbox.min_p).toBeCloseTo(0.25, 12);
    expect(inbox.interval?.low).toBeLessThan(-0.5);
    expect(inbox.interval?.high).toBeLessThan(0);
    // Different seeds: Fisher's test, whose smallest p with 3 a side is 2/20.
    const apart = compareReports(
      reportOf('a', seedsAt('gmail', 3, 3)),
      reportOf('b', seedsAt('gmail', 3, 0, 3, 'pending', 'other')),
    );
    expect(apart.design).toBe('independent');
    expect(apart.by_provider.gmail?.inbox).toMatchObject({ test: 'fisher_exact', reading: READINGS.tooFew });
    expect(apart.by_provider.gmail?.inbox.min_p).toBeCloseTo(0.1, 12);
  });

  it('pairs the same seeds by McNemar: 10 lost, 2 gained, 8 alike is binom.test(2, 12)', () => {
    const seeds = seedsAt('gmail', 20, 0);
    const a = reportOf(
      'a',
      seeds.map(([email, provider], i) => [email, provider, i < 15 ? 'primary' : 'spam']),
    );
    const b = reportOf(
      'b',
      seeds.map(([email, provider], i) => [
        email,
        provider,
        (i >= 10 && i < 15) || i >= 18 ? 'primary' : 'spam',
      ]),
    );
    const inbox = compareReports(a, b).overall.inbox;
    expect(inbox).toMatchObject({ test: 'mcnemar_exact', reading: READINGS.real });
    expect(inbox.p_value).toBeCloseTo(79 / 2048, 12);
  });

  it('stratifies overall by provider: 30 Yahoo seeds at 30/30 on one side do not make a difference', () => {
    const a = reportOf('a', [...seedsAt('gmail', 10, 2), ...seedsAt('yahoo', 30, 30)]);
    const b = reportOf('b', seedsAt('gmail', 10, 2, 8, 'pending', 'g2-'));
    const comparison = compareReports(a, b);
    expect(comparison.design).toBe('independent');
    // Pooled, 32 of 40 against 2 of 10 gives p = 0.00074 (statisticsReference.py); within each provider, nothing.
    expect(comparison.overall.inbox).toMatchObject({
      test: 'exact_conditional_by_provider',
      p_value: 1,
      reading: READINGS.chance,
    });
  });

  it('counts a copy that never arrived as not in the inbox: 30 in spam against 5 in spam and 25 missing', () => {
    const a = reportOf('a', seedsAt('outlook', 30, 0, 30));
    const b = reportOf('b', seedsAt('outlook', 30, 0, 5));
    const comparison = compareReports(a, b);
    expect(comparison.base).toBe('of_total');
    expect(comparison.overall.inbox).toMatchObject({
      a: { count: 0, of: 30 },
      b: { count: 0, of: 30 },
      difference: 0,
    });
    expect(comparison.by_provider.outlook?.inbox.p_value).toBe(1);
    expect(comparison.base_note).toContain('never arrived counts as not in the inbox');
  });

  it("corrects ten providers' p-values by Holm: one at p 0.03 alone is no longer a difference", () => {
    const providers = Array.from({ length: 10 }, (_, i) => `p${i}`);
    const seedsA = providers.flatMap((provider) => seedsAt(provider, 10, 10));
    // p0: 5 of 10 seeds lose the inbox (binom.test(0, 5) = 0.0625... so 6: 2/64 = 0.031); the rest stay.
    const seedsB = seedsA.map(([email, provider], i): [string, string, 'primary' | 'spam'] => [
      email,
      provider,
      provider === 'p0' && i < 6 ? 'spam' : 'primary',
    ]);
    const comparison = compareReports(reportOf('a', seedsA), reportOf('b', seedsB));
    const p0 = comparison.by_provider.p0?.inbox;
    expect(p0?.p_value).toBeCloseTo(1 / 32, 12);
    expect(p0?.p_adjusted).toBeCloseTo(10 / 32, 12);
    expect(p0?.reading).toBe(READINGS.chance);
  });

  it('pools a series per seed, lists each check oldest first, and gives the power line', () => {
    const seeds = seedsAt('gmail', 30, 27);
    const older = reportOf('a1', seeds, '2026-11-20T09:00:00.000Z');
    const newer = reportOf('a2', seeds, '2026-11-21T09:00:00.000Z');
    const b = reportOf('b1', seedsAt('gmail', 30, 20), '2026-11-22T09:00:00.000Z');
    const comparison = compareSeries([newer, older], [b]);
    expect(comparison.a.checks.map((check) => check.check_id)).toEqual(['a1', 'a2']);
    expect(comparison.overall.inbox).toMatchObject({
      a: { count: 54, of: 60 },
      test: 'exact_conditional_by_seed',
    });
    expect(comparison.a.checks[0]?.inbox).toMatchObject({ count: 27, of: 30 });
    // 0.9 -> 0.7 needs 69 seeds a side: 3 checks of 30.
    expect(comparison.power).toMatchObject({
      from: 0.9,
      to: 0.7,
      seeds_needed: 69,
      seeds_per_check: 30,
      checks_needed: 3,
    });
  });

  it('leaves seeds marked suspect out, and says nothing to compare where a side has no seed', () => {
    const a = reportOf('a', [...seedsAt('gmail', 2, 1), ...seedsAt('imap', 1, 1)], undefined, [
      'gmail0@gmail.test',
    ]);
    const b = reportOf('b', seedsAt('gmail', 2, 0));
    const comparison = compareReports(a, b);
    expect(comparison.by_provider.gmail?.inbox.a).toMatchObject({ count: 0, of: 1 });
    expect(comparison.by_provider.imap?.inbox).toMatchObject({
      difference: null,
      p_value: null,
      reading: READINGS.nothing,
    });
    expect(comparisonProblem(JSON.parse(JSON.stringify(comparison)))).toBeUndefined();
  });
});

describe('comparisonProblem', () => {
  it('names what is wrong with a body that is not a comparison', () => {
    const good = () =>
      JSON.parse(
        JSON.stringify(
          compareReports(reportOf('a', seedsAt('gmail', 3, 1)), reportOf('b', seedsAt('gmail', 3, 2))),
        ),
      );
    expect(comparisonProblem(null)).toBe('the body is not a JSON object');
    const noB = good();
    delete noB.b;
    expect(comparisonProblem(noB)).toBe('b.checks is missing');
    const badP = good();
    badP.overall.inbox.p_value = 'small';
    expect(comparisonProblem(badP)).toBe('overall.inbox.p_value is not a number or null');
    const badInterval = good();
    badInterval.overall.inbox.interval = { low: 'x' };
    expect(comparisonProblem(badInterval)).toBe('overall.inbox.interval is not an interval or null');
    const badCount = good();
    badCount.by_provider.gmail.spam.a.count = -1;
    expect(comparisonProblem(badCount)).toBe('by_provider.gmail.spam.a.count or .of is not a count');
  });
});
