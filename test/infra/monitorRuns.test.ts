// The monitors on AWS: a schedule runs every due monitor through the live alias of a function with its own role
// (the monitors' item kinds by key prefix, the credentials secret read only), and alarms on its errors, its silence
// and a drop any monitor judged (one alarm over every monitor and provider, by a Metrics Insights query).
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { monitorDropQuery } from '../../infra/constructs/MonitorRuns';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import {
  actionsOf,
  propOf,
  type Resource,
  resourcesOf,
  roleOfFunction,
  type SynthesizedApp,
  statementsOfRole,
  synthApp,
} from './synthApp';

let app: SynthesizedApp;
beforeAll(() => {
  app = synthApp();
});

const monitorFunction = (): [string, Resource] => {
  const found = Object.entries(resourcesOf(app.serviceTemplate, 'AWS::Lambda::Function')).filter(([, fn]) =>
    JSON.stringify(fn.Properties?.Environment ?? {}).includes('"POWERTOOLS_SERVICE_NAME":"monitor"'),
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
};

const alarmNamed = (suffix: string): Resource => {
  const found = Object.values(resourcesOf(app.serviceTemplate, 'AWS::CloudWatch::Alarm')).filter((alarm) =>
    JSON.stringify(alarm.Properties?.AlarmName ?? '').endsWith(`-${suffix}"`),
  );
  expect(found).toHaveLength(1);
  return found[0] as Resource;
};

describe('the monitor schedule on AWS', () => {
  it('runs one function every 5 minutes through its live alias, one run at a time, never retried', () => {
    const [id, fn] = monitorFunction();
    expect(fn.Properties).toMatchObject({ Timeout: 900, ReservedConcurrentExecutions: 1 });
    const [aliasId] = Object.entries(resourcesOf(app.serviceTemplate, 'AWS::Lambda::Alias')).find(
      ([, alias]) => JSON.stringify(alias.Properties?.FunctionName) === JSON.stringify({ Ref: id }),
    ) ?? [''];
    expect(aliasId).not.toBe('');
    app.serviceTemplate.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: { Ref: aliasId } })]),
    });
    const configs = Object.values(resourcesOf(app.serviceTemplate, 'AWS::Lambda::EventInvokeConfig')).filter(
      (config) => JSON.stringify(config.Properties).includes(id),
    );
    expect(configs.length).toBeGreaterThan(0);
    for (const config of configs)
      expect(config.Properties).toMatchObject({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 });
  });

  it('gives it a role of its own: the monitors by key prefix, the sealing key to open messages only', () => {
    const [id, fn] = monitorFunction();
    const role = roleOfFunction(app.serviceTemplate, id);
    const others = Object.values(app.service.functions).map((f) =>
      app.service.getLogicalId(f.role?.node.defaultChild as never),
    );
    expect(others).not.toContain(role);
    const statements = statementsOfRole(app.serviceTemplate, role);
    const actions = statements.flatMap(actionsOf);
    // No secret at all: the item key is gone, the message opens through KMS (test/infra/sealingKey.test.ts).
    expect(actions.filter((a) => a.startsWith('secretsmanager:'))).toEqual([]);
    expect(actions.filter((a) => a.startsWith('kms:'))).toEqual(['kms:Decrypt']);
    const variables = propOf<{ Variables: Record<string, unknown> }>(fn, 'Environment').Variables;
    expect(variables.CREDENTIALS_SECRET_ID).toBeUndefined();
    expect(variables.SEALING_KEY_ARN).toBeDefined();
    const leading = (action: string) =>
      statements
        .filter((s) => actionsOf(s).includes(action) && JSON.stringify(s).includes('LeadingKeys'))
        .flatMap((s) => JSON.stringify((s as { Condition?: unknown }).Condition).match(/[A-Z]+#\*/g) ?? [])
        .sort();
    expect(leading('dynamodb:PutItem')).toEqual(['CHECK#*', 'MONITOR#*', 'MONITORRUN#*']);
    expect(leading('dynamodb:GetItem')).toEqual([
      'CHECK#*',
      'CONTROLRUN#*',
      'LAYOUT#*',
      'MONITOR#*',
      'MONITORMSG#*',
      'MONITORRUN#*',
    ]);
    // Never an account's registration, its credentials, an API key or the history.
    const text = JSON.stringify(statements);
    for (const kind of ['ACCOUNT#*', 'CREDS#*', 'APIKEY#*', 'HISTORY#*']) expect(text).not.toContain(kind);
    const onIndex = statements.filter((s) =>
      JSON.stringify(s.Resource).includes(`/index/${TABLE_SCHEMA.accountsByScope.name}`),
    );
    expect(onIndex.flatMap(actionsOf)).toEqual(['dynamodb:Query']);
  });

  it('is searched by the saved queries, monitor-alarms among them', () => {
    const [id] = monitorFunction();
    const definitions = Object.values(resourcesOf(app.serviceTemplate, 'AWS::Logs::QueryDefinition'));
    const named = definitions.filter((d) => JSON.stringify(d.Properties?.Name).includes('/monitor-alarms'));
    expect(named).toHaveLength(1);
    const logGroup = propOf<{ LogGroup: { Ref: string } }>(
      resourcesOf(app.serviceTemplate)[id],
      'LoggingConfig',
    ).LogGroup.Ref;
    // Every query of the log-wide set (LogQueries); the mailbox-events query reads the scanner's log alone.
    const logWide = definitions.filter(
      (d) => !JSON.stringify(d.Properties?.Name).includes('/mailbox-events'),
    );
    expect(logWide.length).toBeGreaterThan(1);
    for (const definition of logWide)
      expect(JSON.stringify(definition.Properties?.LogGroupNames)).toContain(logGroup);
  });

  it('alarms on its errors and on an hour without a run (silence breaches)', () => {
    const [id] = monitorFunction();
    expect(alarmNamed('MonitorScheduleErrors').Properties).toMatchObject({
      MetricName: 'Errors',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(JSON.stringify(alarmNamed('MonitorScheduleErrors').Properties?.Dimensions)).toContain(id);
    const heartbeat = alarmNamed('MonitorScheduleHeartbeat').Properties ?? {};
    expect(heartbeat.Metrics).toEqual([
      expect.objectContaining({
        MetricStat: expect.objectContaining({
          Metric: expect.objectContaining({ MetricName: 'MonitorScheduleTicks' }),
          Period: 3600,
          Stat: 'Sum',
        }),
      }),
    ]);
    expect(heartbeat).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'breaching',
    });
  });

  it('alarms once over every monitor and provider on the highest MonitorDrop, naming the command to run', () => {
    const drop = alarmNamed('MonitorDrop').Properties ?? {};
    expect(drop).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'ignore',
    });
    const metrics = drop.Metrics as { Expression?: string; Period?: number; ReturnData?: boolean }[];
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({ Expression: monitorDropQuery('InboxPlacement'), Period: 3600 });
    expect(monitorDropQuery('InboxPlacement')).toBe(
      'SELECT MAX(MonitorDrop) FROM SCHEMA("InboxPlacement", service, Monitor, Provider) ' +
        "WHERE service = 'monitor'",
    );
    expect(JSON.stringify(drop.AlarmDescription)).toContain('npm run admin -- monitors status');
    expect(JSON.stringify(drop.AlarmActions)).toContain('Ref');
  });
});
