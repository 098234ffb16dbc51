// Owns the dashboard's sender-audit row: per provider, the share of audited checks whose sender is on a DNS blocklist,
// and per provider with bulk-sender rules, the share failing each rule item: Averages of the audit's 1-or-0 metrics.
import { Duration } from 'aws-cdk-lib';
import { GraphWidget, type IWidget, TextWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { ruleItemsByProvider } from '../../shared/audit';
import type { ServiceMetrics } from './serviceMetrics';

const WIDTH = 8;
const HEIGHT = 6;
/** An hour per point: a share over the few checks of five minutes says little. */
const PERIOD = Duration.hours(1);
const SHARE_AXIS = { min: 0, max: 1 };

/** The row's heading, then its graphs (the dashboard's row wraps them at its width). */
export const auditWidgets = (m: ServiceMetrics): IWidget[] => [
  new TextWidget({
    markdown:
      '## Sender audit, by provider: share of audited checks (an item the audit could not judge is not counted as failing)',
    width: 24,
    height: 1,
  }),
  new GraphWidget({
    title: 'Listed on a DNS blocklist (sending IP or a domain), by provider',
    left: [m.search('auditListed', 'Average', PERIOD)],
    // The volume behind each share: a share of two checks says little.
    right: [m.search('auditListed', 'SampleCount', PERIOD, { suffix: 'audited' })],
    leftYAxis: SHARE_AXIS,
    rightYAxis: { min: 0, label: 'audited checks', showUnits: false },
    width: WIDTH,
    height: HEIGHT,
    period: PERIOD,
  }),
  // One graph per provider with rule sets, its series found by SEARCH under the preset's name (the code's own, not
  // data), one per rule item, whatever items its sets hold.
  ...[...ruleItemsByProvider().keys()].map(
    (provider) =>
      new GraphWidget({
        title: `${provider}: failing each bulk-sender rule item`,
        left: [m.search('auditRuleFailed', 'Average', PERIOD, { only: provider })],
        leftYAxis: SHARE_AXIS,
        width: WIDTH,
        height: HEIGHT,
        period: PERIOD,
      }),
  ),
];
