// Owns the placement report as one self-contained HTML page (`check --html FILE`): inline CSS and SVG only, no
// script and no network, a Content-Security-Policy that forbids both, and every report value escaped, because the
// values come from headers a sender wrote. The page says what was checked and what was not, then the sender audit.
import type { PlacementReport, ProviderSummary } from '../../client';
import { AUDIT_STYLE, auditSection } from './auditHtml';
import { coverageOf, nothingFailedLine } from './coverage';
import { escapeHtml } from './escapeHtml';
import { authCell, failureSentences, percentOf, printable, providerName, spamCell } from './explain';
import { rateChart, rateChartLegend } from './rateChart';

export { escapeHtml } from './escapeHtml';

const text = (value: string, max?: number) => escapeHtml(printable(value, max));

const sentenceCase = (line: string) => `${line.charAt(0).toUpperCase()}${line.slice(1)}`;

const BAR_WIDTH = 400;
const COLORS = { inbox: '#2e7d32', spam: '#c62828', other: '#f9a825', pending: '#bdbdbd' } as const;

/** One horizontal bar: inbox, spam, other, not received, each as wide as its share of the provider's total. */
const placementBar = (name: string, counts: ProviderSummary): string => {
  const parts = [
    ['inbox', counts.inbox],
    ['spam', counts.spam],
    ['other', counts.other],
    ['pending', Math.max(0, counts.total - counts.received)],
  ] as const;
  let x = 0;
  const rects = parts
    .filter(([, count]) => count > 0 && counts.total > 0)
    .map(([part, count]) => {
      const width = (count / counts.total) * BAR_WIDTH;
      const rect = `<rect x="${x.toFixed(1)}" y="0" width="${width.toFixed(1)}" height="20" fill="${COLORS[part]}"><title>${part}: ${count}</title></rect>`;
      x += width;
      return rect;
    })
    .join('');
  return `<svg class="bar" role="img" width="${BAR_WIDTH}" height="20" viewBox="0 0 ${BAR_WIDTH} 20" aria-label="${text(name)}: ${counts.inbox} inbox, ${counts.spam} spam, ${counts.other} other of ${counts.total}"><rect width="${BAR_WIDTH}" height="20" fill="#eeeeee"/>${rects}</svg>`;
};

const share = (rate: number | null) =>
  rate === null || !Number.isFinite(rate) ? '-' : `${Math.round(rate * 1000) / 10}%`;

const cell = (value: string, cls?: string) => `<td${cls ? ` class="${cls}"` : ''}>${text(value)}</td>`;

const resultClass = (value: string) =>
  value === 'pass' || value === 'ham' ? 'ok' : value === '-' || value === 'none' ? 'muted' : 'bad';

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem;color:#212121;background:#fff}
h1{font-size:1.4rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.75rem 0 .5rem}
p.meta{color:#616161;margin:0}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #e0e0e0;vertical-align:top}
th{background:#fafafa;font-weight:600}td.num{text-align:right}
td.ok{color:#2e7d32}td.bad{color:#c62828;font-weight:600}td.muted{color:#9e9e9e}
.legend span{display:inline-block;margin-right:1rem}.legend i{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:middle}
ul.why li{margin:.2rem 0}
tr.suspect td{color:#757575;font-style:italic}
#rate-chart text{font-size:12px;fill:#424242}#rate-chart text.tick{fill:#9e9e9e}
`;

export const renderHtmlReport = (report: PlacementReport): string => {
  const { summary } = report;
  const providers = Object.entries(summary.by_provider)
    .map(
      ([provider, counts]) =>
        `<tr><td>${text(providerName(provider))}</td><td>${placementBar(providerName(provider), counts)}</td><td class="num">${counts.received}/${counts.total}</td><td class="num">${text(percentOf(counts.inbox, counts.total))}</td></tr>`,
    )
    .join('\n');
  const accounts = report.accounts
    .map((account) => {
      const auth = (['spf', 'dkim', 'dmarc'] as const).map((method) => {
        const value = authCell(account, method);
        return cell(value, resultClass(value));
      });
      const spam = spamCell(account);
      const category =
        account.suspect === true ? `${account.category} (suspect seed, not counted)` : account.category;
      return `<tr${account.suspect === true ? ' class="suspect"' : ''}>${cell(account.email, undefined)}${cell(providerName(account.provider))}${cell(category)}${cell(account.folder ?? '-')}${auth.join('')}${cell(spam, resultClass(account.spam?.verdict ?? '-'))}${cell(account.seconds_to_deliver === null ? '-' : `${account.seconds_to_deliver} s`)}</tr>`;
    })
    .join('\n');
  const coverage = coverageOf(report);
  const why = [...failureSentences(report), ...coverage.unexplained];
  const sentences = (id: string, lines: readonly string[]) =>
    `<ul id="${id}">\n${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('\n')}\n</ul>`;
  const rate = summary.inbox_rate;
  const legend = Object.entries(COLORS)
    .map(([part, color]) => `<span><i style="background:${color}"></i>${part}</span>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Placement report ${text(report.check_id, 80)}</title>
<style>${STYLE}${AUDIT_STYLE}</style>
</head>
<body>
<h1>Placement report</h1>
<p class="meta">check ${text(report.check_id, 80)} · ${text(report.status)} · started ${text(report.started_at, 40)}${report.completed_at ? ` · completed ${text(report.completed_at, 40)}` : ''}</p>
<p class="meta">inbox rate ${text(share(rate.of_total))} of all ${summary.total} accounts; ${summary.received} received</p>
<h2>Rates and how sure they are</h2>
${rateChartLegend()}
${rateChart(report)}
<h2>Placement by provider</h2>
<p class="legend">${legend}</p>
<table id="providers">
<thead><tr><th>Provider</th><th>Placement</th><th>Received</th><th>Inbox rate</th></tr></thead>
<tbody>
${providers}
</tbody>
</table>
<h2>Accounts</h2>
<table id="accounts">
<thead><tr><th>Account</th><th>Provider</th><th>Category</th><th>Folder</th><th>SPF</th><th>DKIM</th><th>DMARC</th><th>Spam filter</th><th>Delivery</th></tr></thead>
<tbody>
${accounts}
</tbody>
</table>
<h2>Why</h2>
${why.length > 0 ? `<ul class="why">\n${why.map((sentence) => `<li>${escapeHtml(sentence)}</li>`).join('\n')}\n</ul>` : `<p id="nothing-failed">${escapeHtml(sentenceCase(nothingFailedLine(coverage)))}.</p>`}
<h3>Checked</h3>
${sentences('checked', coverage.checked)}
${coverage.notChecked.length > 0 ? `<h3>Not checked</h3>\n${sentences('not-checked', coverage.notChecked)}` : ''}
<h2>Sender audit</h2>
${auditSection(report.audit)}
</body>
</html>
`;
};
