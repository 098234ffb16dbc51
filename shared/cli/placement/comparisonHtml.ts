// Owns the comparison's HTML page (`compare A B --html FILE`): the series chart (each check's inbox rate over every
// seed with its 95 % interval, then each side pooled), the table of differences with their intervals, and the notes,
// in the words of comparisonText.ts. No script; every value escaped.
import type { ComparedRate, PlacementComparison } from '../../domain/placementComparison';
import { comparisonNotes, differenceText, powerText, pText } from './comparisonText';
import { escapeHtml } from './escapeHtml';
import { printable, providerName } from './explain';
import { AXIS, axis, ROW, type Row, rowSvg, WIDTH } from './rateChart';
import { rateText } from './rates';

const text = (value: string, max = 200) => escapeHtml(printable(value, max));

/** Every check of A, then of B, oldest first within each, then both sides pooled: one bar and whisker each. */
const seriesChart = (comparison: PlacementComparison): string => {
  const rows: Row[] = [];
  for (const [name, side] of [
    ['A', comparison.a],
    ['B', comparison.b],
  ] as const)
    for (const check of side.checks)
      rows.push({
        label: `${name} ${check.started_at.slice(0, 16).replace('T', ' ')}`,
        kind: 'inbox',
        rate: check.inbox,
      });
  rows.push({ label: 'A pooled', kind: 'inbox', rate: comparison.overall.inbox.a });
  rows.push({ label: 'B pooled', kind: 'inbox', rate: comparison.overall.inbox.b });
  const height = AXIS + rows.length * ROW + 6;
  return `<svg id="series-chart" role="img" aria-label="Inbox rate of each check and of each side pooled, with 95% intervals" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">${axis(height)}${rows.map(rowSvg).join('')}</svg>`;
};

const row = (provider: string, rate: string, compared: ComparedRate) =>
  `<tr><td>${text(provider)}</td><td>${rate}</td><td class="num">${text(rateText(compared.a))}</td><td class="num">${text(rateText(compared.b))}</td><td class="num">${text(differenceText(compared))}</td><td class="num">${text(pText(compared.p_adjusted))}</td><td>${text(compared.reading)}</td></tr>`;

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#212121}
table{border-collapse:collapse}td,th{padding:.25rem .6rem;border-bottom:1px solid #e0e0e0;text-align:left}td.num{text-align:right}
#series-chart text{font-size:12px;fill:#424242}#series-chart text.tick{fill:#9e9e9e}.meta{color:#616161}`;

export const renderComparisonHtml = (comparison: PlacementComparison): string => {
  const rows = Object.entries(comparison.by_provider).flatMap(([provider, rates]) => [
    row(providerName(provider), 'inbox', rates.inbox),
    row(providerName(provider), 'spam', rates.spam),
  ]);
  rows.push(row('overall', 'inbox', comparison.overall.inbox));
  const notes = [...comparisonNotes(comparison), ...[powerText(comparison) ?? []].flat()];
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Placement comparison</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Placement comparison</h1>
<h2>Inbox rate, check by check</h2>
${seriesChart(comparison)}
<p class="meta">Bars: inbox rate over every seed of the check; whiskers: its 95% interval (Wilson).</p>
<h2>B against A</h2>
<table id="differences">
<thead><tr><th>Provider</th><th>Rate</th><th>A</th><th>B</th><th>B - A (95%)</th><th>p</th><th>Reading</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
<ul id="notes">
${notes.map((note) => `<li>${text(note, 400)}</li>`).join('\n')}
</ul>
</body>
</html>
`;
};
