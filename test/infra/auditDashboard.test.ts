// The dashboard's sender-audit row: per provider the share of audited checks listed on a DNS blocklist, and per
// provider with bulk-sender rules the share failing each item, as SEARCH expressions over exactly the series the
// audit's datapoints go out as (names, dimensions and values from the one metrics module).
import { beforeAll, describe, expect, it } from 'vitest';
import { auditDatapoints, ruleItemsByProvider } from '../../shared/audit/auditMetrics';
import { RULE_ITEMS } from '../../shared/audit/rules/ruleItems';
import { PROVIDERS } from '../../shared/providers/presets';
import { METRICS, METRICS_NAMESPACE, SERVICE_DIMENSION } from '../../shared/telemetry/metrics';
import { joinWithPlaceholders, resourcesOf, synthApp } from './synthApp';

interface Graph {
  type: string;
  properties: {
    title?: string;
    period?: number;
    metrics?: [{ expression: string; label?: string; yAxis?: string }][];
    yAxis?: { left?: { min?: number; max?: number } };
  };
}

let widgets: Graph[];
beforeAll(() => {
  const built = synthApp();
  const [dashboard] = Object.values(resourcesOf(built.serviceTemplate, 'AWS::CloudWatch::Dashboard'));
  widgets = (JSON.parse(joinWithPlaceholders(dashboard?.Properties?.DashboardBody)) as { widgets: Graph[] })
    .widgets;
});

const titled = (title: string): Graph['properties'] => {
  const widget = widgets.find((candidate) => candidate.properties.title === title);
  if (!widget) throw new Error(`no widget "${title}"`);
  return widget.properties;
};
/** The graph's metric-math rows (a plain metric's row starts with its namespace, not an object). */
const expressions = (properties: Graph['properties']) =>
  (properties.metrics ?? []).flatMap(([row]) =>
    typeof row === 'object' && 'expression' in row
      ? [{ expression: row.expression, label: row.label, axis: row.yAxis }]
      : [],
  );
/** A dynamic label naming a series by one of its dimensions, as CloudWatch spells it. */
const named = (dimension: string) => `\${PROP('Dim.${dimension}')}`;

const HOUR = 3600;
const search = (schema: string[], name: string, filter: string, stat: string) =>
  `SEARCH('{${[METRICS_NAMESPACE, SERVICE_DIMENSION, ...schema].join(',')}} MetricName="${name}" ${SERVICE_DIMENSION}="scan"${filter}', '${stat}', ${HOUR})`;

describe('sender audit on the dashboard', () => {
  it('draws the share listed on a blocklist by provider (Average of 1-or-0), with the audited volume beside it', () => {
    const graph = titled('Listed on a DNS blocklist (sending IP or a domain), by provider');
    const listed = METRICS.auditListed.name;
    expect(expressions(graph)).toEqual([
      {
        expression: search(['Provider'], listed, '', 'Average'),
        label: named('Provider'),
        axis: undefined,
      },
      {
        expression: search(['Provider'], listed, '', 'SampleCount'),
        label: `${named('Provider')} audited`,
        axis: 'right',
      },
    ]);
    expect(graph.yAxis?.left).toMatchObject({ min: 0, max: 1 });
    expect(graph.period).toBe(HOUR);
  });

  it('draws, for each provider with bulk-sender rules, the share of audited checks failing each rule item', () => {
    const withRules = [...ruleItemsByProvider().keys()];
    expect(withRules).toEqual(['gmail', 'yahoo', 'aol', 'outlook']);
    for (const provider of withRules) {
      const graph = titled(`${provider}: failing each bulk-sender rule item`);
      expect(expressions(graph)).toEqual([
        {
          expression: search(
            ['Provider', 'Rule'],
            METRICS.auditRuleFailed.name,
            ` Provider="${provider}"`,
            'Average',
          ),
          label: named('Rule'),
          axis: undefined,
        },
      ]);
      expect(graph.yAxis?.left).toMatchObject({ min: 0, max: 1 });
    }
  });

  it("finds every datapoint an audit can emit: each series under a search of the dashboard's", () => {
    const failing = RULE_ITEMS.map((id) => ({ id, label: id, judgement: 'fail' as const }));
    const points = auditDatapoints(
      { findings: [], checklists: [{ ruleSet: 'all', source: 'test', items: failing }] },
      PROVIDERS,
    );
    const drawn = widgets.flatMap((widget) => expressions(widget.properties).map((row) => row.expression));
    for (const point of points) {
      const spec = METRICS[point.metric];
      const dimensions = 'rule' in point ? ['Provider', 'Rule'] : ['Provider'];
      const found = drawn.some(
        (expression) =>
          expression.startsWith(
            `SEARCH('{${[METRICS_NAMESPACE, SERVICE_DIMENSION, ...dimensions].join(',')}}`,
          ) &&
          expression.includes(`MetricName="${spec.name}" ${SERVICE_DIMENSION}="${spec.service}"`) &&
          (!/ Provider="/.test(expression) || expression.includes(` Provider="${point.provider}"`)),
      );
      expect(found, `${spec.name} ${point.provider}`).toBe(true);
    }
    // Every preset counts towards the listing share; only those a rule set names have rule items.
    expect(new Set(points.map((p) => p.provider))).toEqual(new Set(PROVIDERS));
  });
});
