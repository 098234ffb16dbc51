// Two reports compared (shared/domain/placementComparison.ts) and the client's check of the answer
// (shared/client/compareResponse.ts): providers of either check, nothing to compare where one has no copy, and a
// body that is not a comparison refused before anyone prints it.
import { describe, expect, it } from 'vitest';
import { comparisonProblem } from '../../shared/client';
import { compareReports, READINGS } from '../../shared/domain/placementComparison';
import { rateOf } from '../../shared/usecases/getReport';
import { sampleReport } from '../support/placementReport';

describe('compareReports', () => {
  it('compares every provider either check has, and says when one has nothing counted there', () => {
    const a = sampleReport('a');
    const b = sampleReport('b');
    delete b.summary.by_provider.imap;
    const gmail = b.summary.by_provider.gmail;
    if (!gmail) throw new Error('fixture');
    gmail.rates = { inbox: rateOf(0, 2), spam: rateOf(2, 2) };
    const comparison = compareReports(a, b);
    expect(Object.keys(comparison.by_provider)).toEqual(['gmail', 'imap']);
    expect(comparison.by_provider.imap?.inbox).toMatchObject({
      b: { count: 0, of: 0, rate: null },
      difference: null,
      p_value: null,
      reading: READINGS.nothing,
    });
    // 1 of 2 against 0 of 2: the only two tables with these margins are equally likely, so p is 1.
    expect(comparison.by_provider.gmail?.inbox).toMatchObject({
      difference: -0.5,
      p_value: 1,
      reading: READINGS.chance,
    });
    expect(comparisonProblem(JSON.parse(JSON.stringify(comparison)))).toBeUndefined();
  });
});

describe('comparisonProblem', () => {
  it('names what is wrong with a body that is not a comparison', () => {
    const good = () => JSON.parse(JSON.stringify(compareReports(sampleReport('a'), sampleReport('b'))));
    expect(comparisonProblem(null)).toBe('the body is not a JSON object');
    const noB = good();
    delete noB.b;
    expect(comparisonProblem(noB)).toBe('b.check_id is missing');
    const badP = good();
    badP.overall.inbox.p_value = 'small';
    expect(comparisonProblem(badP)).toBe('overall.inbox.p_value is not a number or null');
    const badCount = good();
    badCount.by_provider.gmail.spam.a.count = -1;
    expect(comparisonProblem(badCount)).toBe('by_provider.gmail.spam.a.count or .of is not a count');
  });
});
