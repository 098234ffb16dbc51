// Owns the placement report's rate chart (inline SVG, no script): per provider the inbox and spam rate as bars on one
// 0-100 % scale, each with its 95 % interval as a whisker, and where the latest control landed as a marker, so a
// person sees at a glance which differences the seeds can and cannot show.
import type { ControlPlacement, PlacementReport, RateInterval } from '../../domain/placementReport';
import { escapeHtml } from './escapeHtml';
import { printable, providerName } from './explain';
import { rateText } from './rates';

const LABEL = 150;
const PLOT = 400;
const NOTE = 190;
export const ROW = 22;
const BAR = 12;
export const AXIS = 24;
export const WIDTH = LABEL + PLOT + NOTE;
const CHART_COLORS = {
  inbox: '#2e7d32',
  spam: '#c62828',
  whisker: '#212121',
  control: '#1565c0',
} as const;

const x = (share: number) => (LABEL + Math.min(1, Math.max(0, share)) * PLOT).toFixed(1);
const text = (value: string) => escapeHtml(printable(value, 60));

/** One bar of the chart (the series chart in comparisonHtml.ts draws the same rows). */
export interface Row {
  label: string;
  kind: 'inbox' | 'spam';
  rate: RateInterval | undefined;
  control?: ControlPlacement | null | undefined;
}

export const rowSvg = (row: Row, index: number): string => {
  const top = AXIS + index * ROW;
  const middle = top + ROW / 2;
  const { rate } = row;
  const described = `${row.label} ${row.kind}: ${rateText(rate)}`;
  const parts = [
    `<text class="label" x="${LABEL - 8}" y="${middle + 4}" text-anchor="end">${text(row.label)} · ${row.kind}</text>`,
  ];
  if (rate?.rate != null) {
    const width = (Math.min(1, Math.max(0, rate.rate)) * PLOT).toFixed(1);
    parts.push(
      `<rect class="rate ${row.kind}" x="${LABEL}" y="${middle - BAR / 2}" width="${width}" height="${BAR}" fill="${CHART_COLORS[row.kind]}" fill-opacity="0.75"><title>${text(described)}</title></rect>`,
    );
  }
  if (rate?.low != null && rate.high != null) {
    const [low, high] = [x(rate.low), x(rate.high)];
    parts.push(
      `<g class="whisker" stroke="${CHART_COLORS.whisker}" stroke-width="1.5"><title>95% interval ${text(described)}</title>` +
        `<line x1="${low}" x2="${high}" y1="${middle}" y2="${middle}"/>` +
        `<line x1="${low}" x2="${low}" y1="${middle - 5}" y2="${middle + 5}"/>` +
        `<line x1="${high}" x2="${high}" y1="${middle - 5}" y2="${middle + 5}"/></g>`,
    );
  }
  const control = row.control;
  if (control && control.total > 0) {
    const share = control[row.kind] / control.total;
    const at = Number(x(share));
    parts.push(
      `<path class="control" d="M${at} ${middle - 7} L${at + 6} ${middle} L${at} ${middle + 7} L${at - 6} ${middle} Z" fill="${CHART_COLORS.control}"><title>control ${row.kind}: ${control[row.kind]} of ${control.total}</title></path>`,
    );
  }
  parts.push(`<text class="note" x="${LABEL + PLOT + 10}" y="${middle + 4}">${text(rateText(rate))}</text>`);
  return `<g class="row" data-kind="${row.kind}">${parts.join('')}</g>`;
};

export const axis = (height: number): string =>
  [0, 0.25, 0.5, 0.75, 1]
    .map(
      (share) =>
        `<line x1="${x(share)}" x2="${x(share)}" y1="${AXIS - 4}" y2="${height}" stroke="#e0e0e0"/><text class="tick" x="${x(share)}" y="${AXIS - 8}" text-anchor="middle">${share * 100}%</text>`,
    )
    .join('');

/** The chart as one SVG element: the overall inbox rate first, then each provider's inbox and spam rates. */
export const rateChart = (report: PlacementReport): string => {
  const rows: Row[] = [{ label: 'All providers', kind: 'inbox', rate: report.summary.rates?.inbox }];
  for (const [provider, summary] of Object.entries(report.summary.by_provider)) {
    const label = providerName(provider);
    rows.push({ label, kind: 'inbox', rate: summary.rates?.inbox, control: summary.control });
    rows.push({ label, kind: 'spam', rate: summary.rates?.spam, control: summary.control });
  }
  const height = AXIS + rows.length * ROW + 6;
  return `<svg id="rate-chart" role="img" aria-label="Inbox and spam rate per provider with 95% intervals" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">${axis(height)}${rows.map(rowSvg).join('')}</svg>`;
};

/** What the marks mean, in the page's words. */
export const rateChartLegend = (): string =>
  `<p class="legend"><span><i style="background:${CHART_COLORS.inbox}"></i>inbox rate</span><span><i style="background:${CHART_COLORS.spam}"></i>spam rate</span><span><i style="background:${CHART_COLORS.whisker};height:2px"></i>95% interval (Wilson)</span><span><i style="background:${CHART_COLORS.control};transform:rotate(45deg)"></i>latest control message</span></p>
<p class="meta">Rates count received copies from seeds not suspect. Where two intervals overlap widely, a few seeds cannot tell the rates apart.</p>`;
