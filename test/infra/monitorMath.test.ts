// The monitors' CloudWatch math proved by evaluation: the dashboard's inbox rate and Wilson band, the very expression
// strings the stack synthesizes, evaluated by test/support/metricMath.ts on tables of counts and held to the
// statistics module's Wilson interval within 1e-9, 0 of n, n of n and n = 0 included; and the MonitorDrop alarm's
// Metrics Insights query naming exactly the dimensions that the published MonitorDrop records carry.
import { Stack } from 'aws-cdk-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { monitorDropQuery } from '../../infra/constructs/MonitorRuns';
import { monitorWidgets } from '../../infra/constructs/monitorWidgets';
import { serviceMetricsIn } from '../../infra/constructs/serviceMetrics';
import { createMetrics } from '../../shared/adapters/telemetry/powertools';
import { powertoolsMonitorTelemetry } from '../../shared/adapters/telemetry/telemetryMonitorMetrics';
import { wilsonInterval } from '../../shared/domain/statistics';
import type { MonitorRun } from '../../shared/monitors/monitor';
import type { ProviderJudgement } from '../../shared/monitors/monitorAlarm';
import { SERVICES } from '../../shared/telemetry/metrics';
import { evaluateMetricMath } from '../support/metricMath';

const NAMESPACE = 'InboxPlacement-test';

interface Row {
  expression?: string;
  label?: string;
}

/** The band's three expressions by their label, as the dashboard's JSON carries them. */
const band = () => {
  const stack = new Stack();
  const widgets = monitorWidgets(serviceMetricsIn(NAMESPACE)).flatMap(
    (widget) => stack.resolve(widget.toJson()) as { properties?: { metrics?: Row[][] } }[],
  );
  const rows = widgets.flatMap((widget) => (widget.properties?.metrics ?? []).flat());
  const byLabel = (label: string) => {
    const found = rows.filter((row) => row.label === label && typeof row.expression === 'string');
    expect(found).toHaveLength(1);
    return found[0]?.expression as string;
  };
  return {
    rate: byLabel('inbox rate'),
    low: byLabel('Wilson 95 % low'),
    high: byLabel('Wilson 95 % high'),
  };
};

/**
 * Count tables: per row, one period's pooled inbox copies (i) of copies sent (n) at one monitor and provider: one
 * seed, three seeds over a run or two, twenty seeds, and a long pool.
 */
const TABLES: [i: number, n: number][][] = [
  [
    [0, 1],
    [1, 1],
  ],
  [
    [0, 3],
    [1, 3],
    [2, 3],
    [3, 3],
    [4, 6],
  ],
  [
    [0, 20],
    [17, 20],
    [19, 20],
    [20, 20],
  ],
  [
    [1, 1000],
    [500, 1000],
    [999, 1000],
    [1000, 1000],
  ],
];

describe('the evaluator', () => {
  it('computes the arithmetic the band uses and refuses anything else', () => {
    expect(evaluateMetricMath('2 ^ 3 ^ 2', {})).toBe(512);
    expect(evaluateMetricMath('(i - 1) / n * 2 + 1.5e-1', { i: 3, n: 4 })).toBeCloseTo(1.15, 12);
    expect(() => evaluateMetricMath('FILL(i) + 1', { i: 1 })).toThrow(/function FILL/);
    expect(() => evaluateMetricMath('i +', { i: 1 })).toThrow();
    expect(() => evaluateMetricMath('i / m', { i: 1 })).toThrow(/no value for metric id m/);
  });
});

describe('the dashboard Wilson band, evaluated', () => {
  const { rate, low, high } = band();

  it.each(TABLES.map((table) => [table.map(([i, n]) => `${i}/${n}`).join(' '), table] as const))(
    'gives the statistics module’s rate and interval to 1e-9 for %s',
    (_, table) => {
      for (const [i, n] of table) {
        const interval = wilsonInterval(i, n);
        expect(interval).not.toBeNull();
        const at = { i, n };
        expect(Math.abs(evaluateMetricMath(rate, at) - i / n)).toBeLessThan(1e-9);
        expect(Math.abs(evaluateMetricMath(low, at) - (interval?.low ?? Number.NaN))).toBeLessThan(1e-9);
        expect(Math.abs(evaluateMetricMath(high, at) - (interval?.high ?? Number.NaN))).toBeLessThan(1e-9);
      }
    },
  );

  it('draws nothing at n = 0, where the statistics module has no interval either', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    // 0 / 0 is not a number: CloudWatch draws no point for it, the same as the report's null interval.
    for (const expression of [rate, low, high])
      expect(evaluateMetricMath(expression, { i: 0, n: 0 })).toBeNaN();
  });

  it('stays inside [0, 1] with no clamp of its own: the bounds meet 0 and 1 at 0 of n and n of n', () => {
    for (const n of [1, 2, 3, 7, 20, 100]) {
      expect(Math.abs(evaluateMetricMath(low, { i: 0, n }))).toBeLessThan(1e-12);
      expect(Math.abs(evaluateMetricMath(high, { i: n, n }) - 1)).toBeLessThan(1e-12);
      for (let i = 0; i <= n; i++) {
        expect(evaluateMetricMath(low, { i, n })).toBeGreaterThan(-1e-12);
        expect(evaluateMetricMath(high, { i, n })).toBeLessThan(1 + 1e-12);
      }
    }
  });
});

/** What CloudWatch receives for a judgement: the EMF records Powertools writes to stdout. */
const publishedDrop = () => {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  const run: MonitorRun = {
    scope: 'default',
    monitor: 'welcome',
    checkId: 'abcdefghijklmnopqrst',
    at: Date.UTC(2026, 11, 1),
    byProvider: { gmail: { inbox: 0, spam: 3, other: 0, missing: 0, total: 3 } },
    auditScore: null,
  };
  const judgement = { provider: 'gmail', state: 'drop' } as ProviderJudgement;
  powertoolsMonitorTelemetry(createMetrics(SERVICES.monitor, NAMESPACE)).publishJudgements(run, [judgement]);
  vi.restoreAllMocks();
  return lines
    .flatMap((line) => line.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map(
      (line) =>
        JSON.parse(line) as Record<string, unknown> & {
          _aws: {
            CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[];
          };
        },
    );
};

/** The query's parts; its shape is fixed (MonitorRuns.ts builds it), so a plain split reads it. */
const queryParts = (query: string) => {
  const select = /^SELECT MAX\((\w+)\) FROM SCHEMA\("([^"]+)", ([\w, ]+)\) WHERE (\w+) = '([^']+)'$/.exec(
    query,
  );
  expect(select).not.toBeNull();
  const [, metric = '', namespace = '', dimensions = '', key = '', value = ''] = select ?? [];
  return { metric, namespace, dimensions: dimensions.split(', '), key, value };
};

describe('the MonitorDrop alarm query', () => {
  afterEach(() => vi.restoreAllMocks());

  it('names the metric, namespace and exact dimension set the published judgement carries', () => {
    const records = publishedDrop();
    expect(records).toHaveLength(1);
    const [record] = records;
    const [emf] = record?._aws.CloudWatchMetrics ?? [];
    const query = queryParts(monitorDropQuery(NAMESPACE));
    expect(query.metric).toBe(emf?.Metrics[0]?.Name);
    expect(query.namespace).toBe(emf?.Namespace);
    // SCHEMA matches only metrics with exactly these dimensions: one more or one fewer and the alarm sees nothing.
    expect(emf?.Dimensions).toHaveLength(1);
    expect([...query.dimensions].sort()).toEqual([...(emf?.Dimensions[0] ?? [])].sort());
    expect(query.dimensions).toContain(query.key);
    expect(record?.[query.key]).toBe(query.value);
    expect(record?.[query.metric]).toBe(1);
  });
});
