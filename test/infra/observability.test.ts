// The dashboard, checked against shared/telemetry/metrics.ts so a metric name cannot drift (the alarms are
// test/infra/alarms.test.ts's).
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_THRESHOLDS } from '../../infra/constructs/ServiceAlarms';
import {
  METRICS,
  METRICS_NAMESPACE,
  type MetricSpec,
  SERVICE_DIMENSION,
} from '../../shared/telemetry/metrics';
import { CALIBRATION_ON, joinWithPlaceholders, resourcesOf, type SynthesizedApp, synthApp } from './synthApp';

let built: SynthesizedApp;
beforeAll(() => {
  // With the calibration on: its metrics (control inbox rate, suspect seeds) are drawn only when it runs.
  built = synthApp(CALIBRATION_ON);
});

interface Widget {
  type: string;
  properties: { metrics?: unknown[][]; title?: string };
}

/** A metric the dashboard draws from the service's namespace: its name, `service` value and extra dimension. */
interface DrawnMetric {
  name: string;
  service: string | undefined;
  dimension: string | undefined;
  stat: string | undefined;
}

// A search may narrow to one value of the metric's first dimension (one provider's rule items): `Provider="gmail"`.
const SEARCH =
  /^SEARCH\('\{([^}]*)\} MetricName="([^"]+)" (\w+)="([^"]+)"(?: \w+="[\w-]+")?', '(\w+)', \d+\)$/;

const dashboardBody = (app: SynthesizedApp): string => {
  const [dashboard] = Object.values(resourcesOf(app.serviceTemplate, 'AWS::CloudWatch::Dashboard'));
  return joinWithPlaceholders(dashboard?.Properties?.DashboardBody);
};

const widgetsOf = (body: string): Widget[] => (JSON.parse(body) as { widgets: Widget[] }).widgets;

/** Reads the service's metrics out of every graph: plain metric rows and SEARCH expressions alike. */
const drawnMetrics = (widgets: Widget[]): DrawnMetric[] =>
  widgets.flatMap((widget) =>
    (widget.properties.metrics ?? []).flatMap((row): DrawnMetric[] => {
      const [first] = row;
      if (typeof first === 'object' && first !== null && 'expression' in first) {
        const match = SEARCH.exec(String(first.expression));
        if (!match) return [];
        const [, schema = '', name = '', key, value, stat] = match;
        const [namespace, ...dimensions] = schema.split(',');
        if (namespace !== METRICS_NAMESPACE || key !== SERVICE_DIMENSION) return [];
        return [{ name, service: value, dimension: dimensions.find((d) => d !== SERVICE_DIMENSION), stat }];
      }
      if (first !== METRICS_NAMESPACE) return [];
      const strings = row.filter((part): part is string => typeof part === 'string');
      const options = row.find((part) => typeof part === 'object') as { stat?: string } | undefined;
      const [, name = '', ...pairs] = strings;
      const dims = new Map<string, string>();
      for (let i = 0; i + 1 < pairs.length; i += 2) dims.set(pairs[i] ?? '', pairs[i + 1] ?? '');
      const extra = [...dims.keys()].find((d) => d !== SERVICE_DIMENSION);
      return [{ name, service: dims.get(SERVICE_DIMENSION), dimension: extra, stat: options?.stat }];
    }),
  );

const specs: MetricSpec[] = Object.values(METRICS);
const sameMetric = (drawn: DrawnMetric, spec: MetricSpec) =>
  drawn.name === spec.name && drawn.service === spec.service && drawn.dimension === spec.dimension;

describe('dashboard', () => {
  it('parses a known drift: a metric name that is not in METRICS is reported', () => {
    const widgets: Widget[] = [
      {
        type: 'metric',
        properties: { metrics: [[METRICS_NAMESPACE, 'ChecksStartd', SERVICE_DIMENSION, 'api']] },
      },
    ];
    const unknown = drawnMetrics(widgets).filter((d) => !specs.some((spec) => sameMetric(d, spec)));
    expect(unknown.map((d) => d.name)).toEqual(['ChecksStartd']);
  });

  it('draws only metrics of METRICS, each with its service and dimension', () => {
    const drawn = drawnMetrics(widgetsOf(dashboardBody(built)));
    expect(drawn.length).toBeGreaterThanOrEqual(specs.length);
    expect(drawn.filter((d) => !specs.some((spec) => sameMetric(d, spec)))).toEqual([]);
  });

  it('draws every entry of METRICS', () => {
    const drawn = drawnMetrics(widgetsOf(dashboardBody(built)));
    const missing = Object.entries(METRICS)
      .filter(([, spec]) => !drawn.some((d) => sameMetric(d, spec)))
      .map(([key]) => key);
    expect(missing).toEqual([]);
  });

  it('names no metric of the service namespace, anywhere in the body, that METRICS does not know', () => {
    const body = dashboardBody(built);
    const names = new Set([
      ...[...body.matchAll(new RegExp(`"${METRICS_NAMESPACE}","(\\w+)"`, 'g'))].map((m) => m[1]),
      ...[...body.matchAll(/MetricName=\\"(\w+)\\"/g)].map((m) => m[1]),
    ]);
    expect(names.size).toBeGreaterThan(5);
    expect([...names].filter((name) => !specs.some((spec) => spec.name === name))).toEqual([]);
  });

  it('finds values of Category, Provider and Account by SEARCH, never by a fixed list', () => {
    const expressions = [...dashboardBody(built).matchAll(/"expression":"(SEARCH\(.*?\))"/g)].map(
      (m) => m[1],
    );
    const dimensioned = specs.filter((spec) => spec.dimension !== undefined);
    const schemaOf = (spec: MetricSpec) =>
      [SERVICE_DIMENSION, spec.dimension, spec.secondDimension].filter((d) => d !== undefined).join(',');
    // Every search is of a dimensioned metric, under its own dimensions; every dimensioned metric is searched.
    for (const expression of expressions)
      expect(
        dimensioned.some(
          (spec) => expression?.includes(`,${schemaOf(spec)}} MetricName=\\"${spec.name}\\"`) ?? false,
        ),
        expression,
      ).toBe(true);
    for (const spec of dimensioned)
      expect(expressions.some((e) => e?.includes(`${schemaOf(spec)}} MetricName=\\"${spec.name}\\"`))).toBe(
        true,
      );
  });

  it('draws the inbox rate by provider and authentication failures over time (placement report metrics)', () => {
    const widgets = widgetsOf(dashboardBody(built));
    const titled = (start: string) => {
      const widget = widgets.find((candidate) => candidate.properties.title?.startsWith(start));
      if (!widget) throw new Error(`no widget "${start}…"`);
      return drawnMetrics([widget]);
    };
    expect(titled('Inbox rate by provider')).toEqual([
      { name: METRICS.placedInbox.name, service: 'scan', dimension: 'Provider', stat: 'Average' },
    ]);
    expect(titled('Authentication failures').map((d) => [d.name, d.dimension, d.stat])).toEqual([
      [METRICS.authFail.name, 'Method', 'Sum'],
      [METRICS.authPass.name, 'Method', 'Sum'],
    ]);
  });

  it('draws detection latency at p50, p95 and max', () => {
    const drawn = drawnMetrics(widgetsOf(dashboardBody(built)));
    const stats = drawn.filter((d) => d.name === METRICS.detectionLatency.name).map((d) => d.stat);
    expect(stats).toEqual(['p50', 'p95', 'Maximum']);
  });

  it('draws the API from AWS/ApiGateway on stage $default: requests, 4xx, 5xx, latency p50 and p99', () => {
    const rows = widgetsOf(dashboardBody(built)).flatMap((w) => w.properties.metrics ?? []);
    const api = rows.filter((row) => row[0] === 'AWS/ApiGateway');
    const drawn = api.map((row) => {
      expect(row.slice(2, 6)).toEqual(['ApiId', 'TOKEN', 'Stage', '$default']);
      return `${row[1]}:${(row[6] as { stat: string }).stat}`;
    });
    expect(drawn.sort()).toEqual(['4xx:Sum', '5xx:Sum', 'Count:Sum', 'Latency:p50', 'Latency:p99']);
  });

  it("draws the scanner's wake-ups, its concurrency against the reservation, and every dead-letter queue", () => {
    const widgets = widgetsOf(dashboardBody(built));
    const titled = (start: string) => {
      const widget = widgets.find((candidate) => candidate.properties.title?.startsWith(start));
      if (!widget) throw new Error(`no widget "${start}…"`);
      return widget.properties as { metrics: unknown[][]; annotations?: { horizontal: { value: number }[] } };
    };
    const lines = (start: string) => titled(start).annotations?.horizontal.map((line) => line.value);
    expect(titled('Stream wake-ups').metrics.map((row) => row.slice(0, 2))).toEqual([
      ['AWS/Lambda', 'IteratorAge'],
    ]);
    expect(lines('Stream wake-ups')).toEqual([ALARM_THRESHOLDS.iteratorAgeMs]);
    expect(titled('Scanner concurrency').metrics.map((row) => row.slice(0, 2))).toEqual([
      ['AWS/Lambda', 'ConcurrentExecutions'],
    ]);
    expect(lines('Scanner concurrency')).toEqual([12, 14]);
    // The scanner's and the webhook sender's.
    expect(titled('Dead-letter queues').metrics.map((row) => row.slice(0, 2))).toEqual([
      ['AWS/SQS', 'ApproximateNumberOfMessagesVisible'],
      ['AWS/SQS', 'ApproximateNumberOfMessagesVisible'],
    ]);
    expect(lines('Latency (ms)')).toEqual([ALARM_THRESHOLDS.apiLatencyP99Ms]);
  });

  it("shows every one of the service's alarms in the alarm status widget", () => {
    const widget = widgetsOf(dashboardBody(built)).find((candidate) => candidate.type === 'alarm') as
      | { properties: { alarms: string[] } }
      | undefined;
    const alarms = built.service.node
      .findChild('Alarms')
      .node.children.filter((child) => child instanceof Alarm);
    expect(alarms.length).toBeGreaterThan(10);
    expect(widget?.properties.alarms).toHaveLength(alarms.length);
  });

  it('draws errors, duration and throttles of each of the four functions', () => {
    // The webhook sender's errors have a graph of their own (test/infra/webhooks.test.ts).
    const rows = widgetsOf(dashboardBody(built))
      .filter((w) => !w.properties.title?.startsWith('Webhooks'))
      .flatMap((w) => w.properties.metrics ?? []);
    const lambda = rows.filter((row) => row[0] === 'AWS/Lambda').map((row) => row[1]);
    expect(lambda.filter((name) => name === 'Errors')).toHaveLength(4);
    expect(lambda.filter((name) => name === 'Duration')).toHaveLength(4);
    expect(lambda.filter((name) => name === 'Throttles')).toHaveLength(4);
  });
});
