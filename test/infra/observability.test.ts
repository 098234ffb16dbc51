// The dashboard and the alarms, checked against shared/telemetry/metrics.ts so a metric name cannot drift.
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_THRESHOLDS } from '../../infra/constructs/ServiceAlarms';
import {
  METRICS,
  METRICS_NAMESPACE,
  type MetricSpec,
  SERVICE_DIMENSION,
} from '../../shared/telemetry/metrics';
import {
  joinWithPlaceholders,
  logicalIdOf,
  propOf,
  type Resource,
  resourcesOf,
  type SynthesizedApp,
  synthApp,
} from './synthApp';

let built: SynthesizedApp;
beforeAll(() => {
  built = synthApp();
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

const SEARCH = /^SEARCH\('\{([^}]*)\} MetricName="([^"]+)" (\w+)="([^"]+)"', '(\w+)', \d+\)$/;

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
    expect(expressions).toHaveLength(specs.filter((spec) => spec.dimension !== undefined).length);
    for (const spec of specs.filter((s) => s.dimension !== undefined)) {
      expect(expressions.some((e) => e?.includes(`${SERVICE_DIMENSION},${spec.dimension}}`))).toBe(true);
    }
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

  it('draws errors, duration and throttles of each of the four functions', () => {
    const rows = widgetsOf(dashboardBody(built)).flatMap((w) => w.properties.metrics ?? []);
    const lambda = rows.filter((row) => row[0] === 'AWS/Lambda').map((row) => row[1]);
    expect(lambda.filter((name) => name === 'Errors')).toHaveLength(4);
    expect(lambda.filter((name) => name === 'Duration')).toHaveLength(4);
    expect(lambda.filter((name) => name === 'Throttles')).toHaveLength(4);
  });
});

describe('alarms', () => {
  // The service's own alarms; the deploy alarms of each API alias (SafeDeploys) are test/infra/deploys.test.ts's.
  const alarms = () =>
    Object.values(resourcesOf(built.serviceTemplate, 'AWS::CloudWatch::Alarm')).filter(
      (alarm) => !/Deploy(Errors|Latency)$/.test(String(alarm.Properties?.AlarmName)),
    );
  const topicRef = () => ({
    Ref: logicalIdOf(built.service.node.findChild('Alarms').node.findChild('Topic')),
  });
  const alarmNamed = (suffix: string): Resource => {
    const alarm = alarms().find((a) => String(a.Properties?.AlarmName).endsWith(`-${suffix}`));
    if (!alarm) throw new Error(`no alarm ${suffix}`);
    return alarm;
  };

  it('are ten, each notifying the topic; only the heartbeat breaches on missing data', () => {
    expect(alarms()).toHaveLength(10);
    for (const alarm of alarms()) {
      const heartbeat = String(alarm.Properties?.AlarmName).endsWith('-ScannerHeartbeat');
      expect(alarm.Properties).toMatchObject({
        AlarmActions: [topicRef()],
        OKActions: [topicRef()],
        TreatMissingData: heartbeat ? 'breaching' : 'notBreaching',
        EvaluationPeriods: 1,
      });
    }
  });

  it('fire when the scanner heartbeat is missing: under one tick in 15 minutes, no data breaching', () => {
    const props = alarmNamed('ScannerHeartbeat').Properties;
    expect(props).toMatchObject({
      Threshold: ALARM_THRESHOLDS.scannerHeartbeats,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
    expect(ALARM_THRESHOLDS.scannerHeartbeats).toBe(1);
    expect(props?.Metrics).toEqual([
      expect.objectContaining({
        MetricStat: {
          Metric: {
            Namespace: METRICS_NAMESPACE,
            MetricName: METRICS.scannerHeartbeat.name,
            Dimensions: [{ Name: SERVICE_DIMENSION, Value: METRICS.scannerHeartbeat.service }],
          },
          Period: 900,
          Stat: 'Sum',
        },
      }),
    ]);
  });

  it('fire on a dead-lettered scanner invocation', () => {
    expect(alarmNamed('ScannerDeadLetters').Properties).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        {
          Name: 'QueueName',
          Value: { 'Fn::GetAtt': [logicalIdOf(built.service.scannerDeadLetters), 'QueueName'] },
        },
      ],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  interface MetricQuery {
    MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: { Value: unknown }[] } };
  }
  /** The MetricStat inputs of a math alarm, as "Namespace/MetricName [dimension values]". */
  const inputsOf = (alarm: Resource) =>
    propOf<MetricQuery[]>(alarm, 'Metrics')
      .flatMap(({ MetricStat }) => (MetricStat ? [MetricStat.Metric] : []))
      .map((m) => `${m.Namespace}/${m.MetricName} ${JSON.stringify(m.Dimensions.map((d) => d.Value))}`)
      .sort();
  const fnRef = (fn: { node: unknown }) => JSON.stringify([{ Ref: logicalIdOf(fn as never) }]);

  it('fire on one error of any API function in 5 minutes', () => {
    const alarm = alarmNamed('ApiFunctionErrors');
    expect(alarm.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const { start, get, fallback } = built.service.functions;
    expect(inputsOf(alarm)).toEqual(
      [start, get, fallback].map((fn) => `AWS/Lambda/Errors ${fnRef(fn)}`).sort(),
    );
  });

  it('fire on one Lambda throttle of any function in 5 minutes', () => {
    const alarm = alarmNamed('LambdaThrottles');
    expect(alarm.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(inputsOf(alarm)).toEqual(
      Object.values(built.service.functions)
        .map((fn) => `AWS/Lambda/Throttles ${fnRef(fn)}`)
        .sort(),
    );
  });

  it('fire on one throttled DynamoDB request to the table, whatever the operation', () => {
    const alarm = alarmNamed('TableThrottles');
    expect(alarm.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const inputs = inputsOf(alarm);
    expect(inputs).toHaveLength(7);
    for (const operation of [
      'GetItem',
      'PutItem',
      'UpdateItem',
      'DeleteItem',
      'BatchWriteItem',
      'Query',
      'Scan',
    ]) {
      expect(
        inputs.some((i) => i.startsWith('AWS/DynamoDB/ThrottledRequests') && i.includes(`"${operation}"`)),
      ).toBe(true);
    }
  });

  it('fires on one scanner error in 5 minutes', () => {
    expect(alarmNamed('ScannerErrors').Properties).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(built.service.scanner) } }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('fires while any account is out of new checks (UnhealthyAccounts maximum)', () => {
    const props = alarmNamed('UnhealthyAccounts').Properties;
    expect(props).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(JSON.stringify(props?.Metrics)).toContain(`"MetricName":"${METRICS.unhealthyAccounts.name}"`);
    expect(JSON.stringify(props?.Metrics)).toContain('"Stat":"Maximum"');
  });

  it('fires when an account failed 3 sweeps in a row (ImapConsecutiveFailures maximum)', () => {
    const props = alarmNamed('ImapLoginFailures').Properties;
    expect(props).toMatchObject({
      Threshold: ALARM_THRESHOLDS.imapConsecutiveFailures,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(ALARM_THRESHOLDS.imapConsecutiveFailures).toBe(3);
    expect(props?.Metrics).toEqual([
      expect.objectContaining({
        MetricStat: {
          Metric: {
            Namespace: METRICS_NAMESPACE,
            MetricName: METRICS.consecutiveImapFailures.name,
            Dimensions: [{ Name: SERVICE_DIMENSION, Value: METRICS.consecutiveImapFailures.service }],
          },
          Period: 300,
          Stat: 'Maximum',
        },
      }),
    ]);
  });

  it('fires on 5 API 5xx in 5 minutes on stage $default', () => {
    const props = alarmNamed('Api5xx').Properties;
    expect(props).toMatchObject({
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 5,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(props?.Dimensions).toContainEqual({ Name: 'Stage', Value: '$default' });
  });

  it('fires when over 20% of the checks ending in 15 minutes timed out', () => {
    const props = alarmNamed('ChecksTimingOut').Properties;
    expect(props).toMatchObject({ Threshold: 0.2, ComparisonOperator: 'GreaterThanThreshold' });
    const metrics = props?.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { MetricName: string }; Period: number; Stat: string };
    }[];
    const expression = metrics.find((m) => m.Expression)?.Expression ?? '';
    expect(expression.replaceAll(/FILL\((\w+), 0\)/g, '$1')).toBe('timedOut / (completed + timedOut)');
    const inputs = Object.fromEntries(metrics.filter((m) => m.MetricStat).map((m) => [m.Id, m.MetricStat]));
    expect(inputs).toEqual({
      timedOut: {
        Metric: expect.objectContaining({ MetricName: METRICS.checksTimedOut.name }),
        Period: 900,
        Stat: 'Sum',
      },
      completed: {
        Metric: expect.objectContaining({ MetricName: METRICS.checksCompleted.name }),
        Period: 900,
        Stat: 'Sum',
      },
    });
  });

  it('notify an existing topic as well when alarmTopicArn is given', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:ops-pager';
    const withTopic = synthApp({ alarmTopicArn: arn });
    const ref = { Ref: logicalIdOf(withTopic.service.node.findChild('Alarms').node.findChild('Topic')) };
    const all = Object.values(resourcesOf(withTopic.serviceTemplate, 'AWS::CloudWatch::Alarm'));
    expect(all).toHaveLength(10);
    for (const alarm of all) {
      expect(alarm.Properties).toMatchObject({ AlarmActions: [ref, arn], OKActions: [ref, arn] });
    }
  });

  it('publish to a topic that refuses publishing without TLS', () => {
    built.serviceTemplate.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ],
      },
    });
  });
});
