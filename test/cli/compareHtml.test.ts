// The comparison's HTML page (shared/cli/placement/comparisonHtml.ts) as a string: the series chart has a bar and a
// whisker for each check and each side pooled, the table carries the difference with its interval and the reading
// in the words of comparisonText.ts, and a value a seed's operator could shape is escaped. (The rendered page is
// looked at in Chromium by test/cli/rateChart.test.ts, whose rows this chart reuses.)
import { describe, expect, it } from 'vitest';
import { renderComparisonHtml } from '../../shared/cli/placement/comparisonHtml';
import { compareSeries, READINGS } from '../../shared/domain/placementComparison';
import { reportOf, seedsAt } from '../support/seriesReports';

describe('renderComparisonHtml', () => {
  it('draws each check of both series and both sides pooled, with intervals, and the readings', () => {
    const seeds = seedsAt('gmail', 6, 6);
    const a = [
      reportOf('a1', seeds, '2026-11-20T09:00:00.000Z'),
      reportOf('a2', seeds, '2026-11-21T09:00:00.000Z'),
    ];
    const b = [reportOf('b1', seedsAt('gmail', 6, 0), '2026-11-22T09:00:00.000Z')];
    const page = renderComparisonHtml(compareSeries(a, b));
    const chart = page.slice(page.indexOf('<svg id="series-chart"'), page.indexOf('</svg>') + 6);
    expect(chart.match(/<g class="row"/g)).toHaveLength(5);
    expect(chart.match(/<g class="whisker"/g)).toHaveLength(5);
    expect(chart).toContain('A 2026-11-20 09:00');
    expect(chart).toContain('B pooled');
    expect(page).toMatch(/<td class="num">-100 points \(-100 to -\d+\)<\/td>/);
    expect(page).toContain(READINGS.real);
    expect(page).toContain('power: to detect 100% -&#62; 80%');
    expect(page).not.toContain('<script');
  });

  it('escapes a provider name and says too few seeds to tell where three seeds cannot', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const page = renderComparisonHtml(
      compareSeries([reportOf('a', seedsAt(hostile, 3, 3))], [reportOf('b', seedsAt(hostile, 3, 0))]),
    );
    expect(page).not.toContain(hostile);
    expect(page).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(page).toContain(`<td>${READINGS.tooFew}</td>`);
  });
});
