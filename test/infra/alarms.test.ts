// The service's alarms in the template: each one's metric, threshold, M of N datapoints and missing-data treatment;
// sums in which a quiet series counts as 0; rates that need a minimum volume; a depth alarm on every dead-letter
// queue; and where they notify.
import { Match } from 'aws-cdk-lib/assertions';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_THRESHOLDS } from '../../infra/constructs/ServiceAlarms';
import { DEFAULT_SETTINGS } from '../../infra/settings';
import { METRICS, METRICS_NAMESPACE, SERVICE_DIMENSION } from '../../shared/telemetry/metrics';
import { logicalIdOf, type Resource, resourcesOf, type SynthesizedApp, synthApp } from './synthApp';

let built: SynthesizedApp;
beforeAll(() => {
  built = synthApp();
});

/** The alarms ServiceAlarms made (the deploy alarms of each alias are test/infra/deploys.test.ts's), by id. */
const serviceAlarms = (app: SynthesizedApp = built): Map<string, Resource> => {
  const all = resourcesOf(app.serviceTemplate, 'AWS::CloudWatch::Alarm');
  const construct = app.service.node.findChild('Alarms');
  return new Map(
    construct.node.children
      .filter((child): child is Alarm => child instanceof Alarm)
      .map((alarm) => [alarm.node.id, all[logicalIdOf(alarm)] as Resource]),
  );
};
const alarmNamed = (id: string): Record<string, unknown> => {
  const props = serviceAlarms().get(id)?.Properties;
  if (!props) throw new Error(`no alarm ${id}`);
  return props;
};

interface Query {
  Id: string;
  Expression?: string;
  MetricStat?: {
    Metric: { Namespace: string; MetricName: string; Dimensions?: { Name: string; Value: unknown }[] };
    Period: number;
    Stat: string;
  };
  ReturnData?: boolean;
}
const queriesOf = (id: string) => (alarmNamed(id).Metrics ?? []) as Query[];
const expressionOf = (id: string): string => {
  const expression = queriesOf(id).find((query) => query.Expression)?.Expression;
  if (!expression) throw new Error(`${id} is not a math alarm`);
  return expression;
};

/**
 * Evaluates an alarm's metric math for one period, each input given or missing (undefined): IF, FILL and the
 * arithmetic CloudWatch and JavaScript share, so a test can ask what the alarm would see.
 */
const evaluate = (id: string, inputs: Record<string, number | undefined>): number => {
  const names = queriesOf(id)
    .filter((query) => query.MetricStat)
    .map((query) => query.Id);
  const IF = (condition: boolean, then: number, otherwise: number) => (condition ? then : otherwise);
  const FILL = (value: number | undefined, fill: number) => value ?? fill;
  const run = new Function('IF', 'FILL', ...names, `return ${expressionOf(id)};`);
  return run(IF, FILL, ...names.map((name) => inputs[name])) as number;
};

const minutes = (n: number) => n * 60;

/** Every alarm: [threshold, comparison, period (s), datapoints to alarm, evaluation periods, missing data]. */
const EXPECTED: Record<string, [number, string, number, number, number, string]> = {
  ScannerHeartbeat: [1, 'LessThanThreshold', minutes(15), 1, 1, 'breaching'],
  ScannerDeadLetters: [1, 'GreaterThanOrEqualToThreshold', minutes(1), 3, 5, 'ignore'],
  WebhooksDeadLetters: [1, 'GreaterThanOrEqualToThreshold', minutes(1), 3, 5, 'ignore'],
  ApiFunctionErrors: [1, 'GreaterThanOrEqualToThreshold', minutes(1), 3, 5, 'notBreaching'],
  LambdaThrottles: [1, 'GreaterThanOrEqualToThreshold', minutes(1), 3, 5, 'notBreaching'],
  TableThrottles: [1, 'GreaterThanOrEqualToThreshold', minutes(1), 3, 5, 'notBreaching'],
  ScannerErrors: [1, 'GreaterThanOrEqualToThreshold', minutes(5), 2, 3, 'notBreaching'],
  ScannerIteratorAge: [30_000, 'GreaterThanOrEqualToThreshold', minutes(1), 3, 5, 'notBreaching'],
  ScannerConcurrency: [12, 'GreaterThanOrEqualToThreshold', minutes(1), 3, 5, 'notBreaching'],
  ImapLoginFailures: [3, 'GreaterThanOrEqualToThreshold', minutes(5), 2, 3, 'notBreaching'],
  UnhealthyAccounts: [1, 'GreaterThanOrEqualToThreshold', minutes(5), 2, 3, 'notBreaching'],
  Api5xx: [0.05, 'GreaterThanThreshold', minutes(1), 3, 5, 'notBreaching'],
  ApiLatency: [2500, 'GreaterThanThreshold', minutes(1), 3, 5, 'notBreaching'],
  ChecksTimingOut: [0.2, 'GreaterThanThreshold', minutes(15), 2, 3, 'notBreaching'],
  WebhookSenderErrors: [1, 'GreaterThanOrEqualToThreshold', minutes(5), 2, 3, 'notBreaching'],
  DeployProbeErrors: [1, 'GreaterThanOrEqualToThreshold', minutes(5), 2, 3, 'notBreaching'],
  DeployBakeErrors: [1, 'GreaterThanOrEqualToThreshold', minutes(5), 2, 3, 'notBreaching'],
  WebhookIteratorAge: [60_000, 'GreaterThanOrEqualToThreshold', minutes(1), 3, 5, 'notBreaching'],
  WebhookRetryAge: [1800, 'GreaterThanOrEqualToThreshold', minutes(1), 3, 5, 'ignore'],
};

/** The period of an alarm: on the alarm itself, or on its math expression and each of its inputs alike. */
const periodOf = (props: Record<string, unknown>): number => {
  if (typeof props.Period === 'number') return props.Period;
  const queries = props.Metrics as Query[];
  const periods = new Set(queries.flatMap((query) => (query.MetricStat ? [query.MetricStat.Period] : [])));
  expect(periods.size).toBe(1);
  return [...periods][0] ?? Number.NaN;
};

describe('each alarm', () => {
  it('is one of the expected, and every expected one is there', () => {
    expect([...serviceAlarms().keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))(
    '%s: threshold, comparison, period, M of N, missing data',
    (id, expected) => {
      const [threshold, comparison, period, datapoints, evaluations, missing] = expected;
      const props = alarmNamed(id);
      expect(props).toMatchObject({
        Threshold: threshold,
        ComparisonOperator: comparison,
        DatapointsToAlarm: datapoints,
        EvaluationPeriods: evaluations,
        TreatMissingData: missing,
      });
      expect(periodOf(props)).toBe(period);
    },
  );

  it('needs more than one breaching datapoint, of more, everywhere but the heartbeat', () => {
    for (const [id, alarm] of serviceAlarms()) {
      const { DatapointsToAlarm, EvaluationPeriods } = alarm.Properties as Record<string, number>;
      if (id === 'ScannerHeartbeat') continue;
      expect([id, DatapointsToAlarm]).toEqual([id, expect.any(Number)]);
      expect(DatapointsToAlarm).toBeGreaterThan(1);
      expect(EvaluationPeriods).toBeGreaterThanOrEqual(DatapointsToAlarm as number);
    }
  });

  it('fires on the scanner nearing its reserved concurrency: 80% of scannerConcurrency', () => {
    expect(alarmNamed('ScannerConcurrency')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'ConcurrentExecutions',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(built.service.scanner) } }],
    });
    expect(EXPECTED.ScannerConcurrency?.[0]).toBe(Math.ceil(DEFAULT_SETTINGS.scannerConcurrency * 0.8));
    const wider = serviceAlarms(synthApp({ scannerConcurrency: 50 })).get('ScannerConcurrency');
    expect(wider?.Properties?.Threshold).toBe(40);
  });

  it('fires on stream wake-ups falling behind: the scanner iterator age', () => {
    expect(alarmNamed('ScannerIteratorAge')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalIdOf(built.service.scanner) } }],
    });
  });

  it('keeps the heartbeat on the scanner ticks, so silence is what fires it', () => {
    expect(queriesOf('ScannerHeartbeat')).toEqual([
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
});

describe('metric math', () => {
  it('wraps every input of every expression in FILL(…, 0), so a quiet series counts as 0', () => {
    let expressions = 0;
    for (const [id, alarm] of serviceAlarms()) {
      const queries = (alarm.Properties?.Metrics ?? []) as Query[];
      const expression = queries.find((query) => query.Expression)?.Expression;
      if (!expression) continue;
      expressions++;
      const bare = expression.replaceAll(/FILL\(\w+, 0\)/g, '');
      for (const input of queries.filter((query) => query.MetricStat)) {
        expect([id, expression.includes(`FILL(${input.Id}, 0)`)]).toEqual([id, true]);
        expect([id, new RegExp(`\\b${input.Id}\\b`).test(bare)]).toEqual([id, false]);
      }
    }
    expect(expressions).toBeGreaterThanOrEqual(6);
  });

  it('sums the table throttles of every operation, one throttled operation enough while others are quiet', () => {
    const inputs = queriesOf('TableThrottles').filter((query) => query.MetricStat);
    expect(inputs.map((query) => query.MetricStat?.Metric.MetricName)).toEqual(
      inputs.map(() => 'ThrottledRequests'),
    );
    const operations = inputs.map(
      (query) => query.MetricStat?.Metric.Dimensions?.find((d) => d.Name === 'Operation')?.Value,
    );
    expect([...operations].sort()).toEqual(
      [
        'BatchGetItem',
        'BatchWriteItem',
        'DeleteItem',
        'GetItem',
        'PutItem',
        'Query',
        'Scan',
        'UpdateItem',
      ].sort(),
    );
    const [first] = inputs;
    expect(evaluate('TableThrottles', { [first?.Id ?? '']: 2 })).toBe(2);
  });

  it('does not judge ChecksTimingOut on one abandoned check: 10 ended checks at least', () => {
    const fires = (inputs: Record<string, number | undefined>) =>
      evaluate('ChecksTimingOut', inputs) > ALARM_THRESHOLDS.timedOutShare;
    expect(fires({ timedOut: 1 })).toBe(false);
    expect(fires({ timedOut: 9, completed: undefined })).toBe(false);
    expect(fires({ timedOut: 3, completed: 7 })).toBe(true);
    expect(fires({ timedOut: 10 })).toBe(true);
    expect(fires({ timedOut: 2, completed: 18 })).toBe(false);
  });

  it('judges the API 5xx share and p99 only in minutes with 10 requests or more', () => {
    const failing = (failed: number, requests: number | undefined) =>
      evaluate('Api5xx', { failed, requests }) > ALARM_THRESHOLDS.api5xxShare;
    expect(failing(1, 2)).toBe(false);
    expect(failing(3, undefined)).toBe(false);
    expect(failing(1, 10)).toBe(true);
    expect(failing(1, 40)).toBe(false);
    const slow = (value: number, volume: number) =>
      evaluate('ApiLatency', { value, volume }) > ALARM_THRESHOLDS.apiLatencyP99Ms;
    expect(slow(9000, 3)).toBe(false);
    expect(slow(9000, 10)).toBe(true);
    expect(slow(400, 500)).toBe(false);
  });
});

describe('dead-letter queues', () => {
  const getAttArn = (value: unknown): string | undefined => {
    const att = (value as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];
    return att?.[1] === 'Arn' ? att[0] : undefined;
  };

  /** Every queue something sends its failures to: a rule target's, an on-failure destination, a redrive policy's. */
  const deadLetterQueues = (): Set<string> => {
    const found = new Set<string>();
    const queues = resourcesOf(built.serviceTemplate, 'AWS::SQS::Queue');
    const visit = (node: unknown, underFailure: boolean): void => {
      if (typeof node !== 'object' || node === null) return;
      const id = getAttArn(node);
      if (id && underFailure && queues[id]) found.add(id);
      for (const [key, value] of Object.entries(node)) {
        visit(value, underFailure || /^(DeadLetterConfig|OnFailure|deadLetterTargetArn)$/.test(key));
      }
    };
    visit(built.serviceTemplate.toJSON().Resources, false);
    return found;
  };

  it('each have a depth alarm', () => {
    const queues = deadLetterQueues();
    expect(queues).toContain(logicalIdOf(built.service.scannerDeadLetters));
    const watched = new Set(
      [...serviceAlarms().values()]
        .filter((alarm) => alarm.Properties?.MetricName === 'ApproximateNumberOfMessagesVisible')
        .map((alarm) => {
          const dimensions = (alarm.Properties?.Dimensions ?? []) as { Value: { 'Fn::GetAtt': string[] } }[];
          return dimensions[0]?.Value['Fn::GetAtt'][0];
        }),
    );
    expect([...queues].filter((queue) => !watched.has(queue))).toEqual([]);
  });
});

describe('notifications', () => {
  const topicRef = (app: SynthesizedApp) => ({
    Ref: logicalIdOf(app.service.node.findChild('Alarms').node.findChild('Topic')),
  });

  it('go to the topic when an alarm fires and when it clears', () => {
    for (const alarm of serviceAlarms().values()) {
      expect(alarm.Properties).toMatchObject({
        AlarmActions: [topicRef(built)],
        OKActions: [topicRef(built)],
      });
    }
  });

  it('go to a topic that refuses publishing without TLS', () => {
    built.serviceTemplate.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ],
      },
    });
  });

  it('go to an existing topic as well when alarmTopicArn is given', () => {
    const arn = 'arn:aws:sns:eu-west-1:123456789012:ops-pager';
    const withTopic = synthApp({ alarmTopicArn: arn });
    const alarms = serviceAlarms(withTopic);
    expect(alarms.size).toBe(Object.keys(EXPECTED).length);
    for (const alarm of alarms.values()) {
      const ref = topicRef(withTopic);
      expect(alarm.Properties).toMatchObject({ AlarmActions: [ref, arn], OKActions: [ref, arn] });
    }
  });
});
