// Owns the dashboard's monitors section: per monitor and provider (found by SEARCH: both are data), the inbox rate of
// its runs over time with its 95 % Wilson band drawn by metric math over the counts, the counts and audit score, the
// judgement (MonitorDrop) and the schedule's ticks.
import { Duration } from 'aws-cdk-lib';
import { GraphWidget, type IWidget, MathExpression, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { ServiceMetrics } from './serviceMetrics';

/** Six hours a point: a monitor runs every 1 to 6 h, so each point pools at least one run. */
const PERIOD = Duration.hours(6);
/** z and z² of a two-sided 95 % interval, as shared/domain/statistics.ts. */
const Z = 1.959964;
const Z2 = Z * Z;

/**
 * Wilson's interval per series, element by element over the two searches' series (CloudWatch pairs two arrays of
 * series in order; both searches are under the same dimensions, so their order matches): p = i/n,
 * centre = (p + z²/2n) / (1 + z²/n), half = z / (1 + z²/n) · √(p(1-p)/n + z²/4n²).
 */
const wilson = (m: ServiceMetrics, side: 'low' | 'high' | 'rate'): MathExpression => {
  const inbox = m.search('monitorInbox', 'Sum', PERIOD);
  const copies = m.search('monitorCopies', 'Sum', PERIOD);
  const p = '(i / n)';
  const centre = `((${p} + ${Z2 / 2} / n) / (1 + ${Z2} / n))`;
  const half = `((${Z} / (1 + ${Z2} / n)) * ((${p} * (1 - ${p}) / n + ${Z2 / 4} / (n * n)) ^ 0.5))`;
  const expression = side === 'rate' ? p : side === 'low' ? `${centre} - ${half}` : `${centre} + ${half}`;
  return new MathExpression({
    expression,
    usingMetrics: { i: inbox, n: copies },
    label: side === 'rate' ? 'inbox rate' : `Wilson 95 % ${side}`,
    period: PERIOD,
  });
};

/** The section, over this stage's namespace only (`m`), as every graph of the stack. */
export const monitorWidgets = (m: ServiceMetrics): IWidget[] => [
  new TextWidget({
    markdown:
      '## Monitors: inbox rate per monitor and provider, with its 95 % Wilson band (a few seeds make a wide band)',
    width: 24,
    height: 1,
  }),
  new GraphWidget({
    title: 'Monitor inbox rate, with its Wilson band',
    left: [wilson(m, 'rate'), wilson(m, 'low'), wilson(m, 'high')],
    leftYAxis: { min: 0, max: 1 },
    width: 12,
    height: 6,
    period: PERIOD,
  }),
  new GraphWidget({
    title: 'Monitor copies: inbox, spam, missing, sent',
    left: [
      m.search('monitorInbox', 'Sum', PERIOD, { suffix: 'inbox' }),
      m.search('monitorSpam', 'Sum', PERIOD, { suffix: 'spam' }),
      m.search('monitorMissing', 'Sum', PERIOD, { suffix: 'missing' }),
      m.search('monitorCopies', 'Sum', PERIOD, { suffix: 'sent' }),
    ],
    right: [m.search('monitorAuditScore', 'Average', PERIOD, { suffix: 'audit score' })],
    width: 12,
    height: 6,
    period: PERIOD,
  }),
  new GraphWidget({
    title:
      "Monitor judgements (1: a real drop or the message, the MonitorDrop alarm's input) and schedule ticks",
    left: [m.search('monitorDrop', 'Maximum', Duration.hours(1))],
    leftYAxis: { min: 0, max: 1 },
    right: [
      m.metric('monitorScheduleTicks', { statistic: 'Sum', period: Duration.hours(1), label: 'ticks' }),
    ],
    width: 24,
    height: 6,
    period: Duration.hours(1),
  }),
];
