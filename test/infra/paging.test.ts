// Every function is paged and every deploy bakes: an Errors alarm on each function of the stack, the webhook sender's
// iterator-age and retry-age alarms, the calibration's heartbeat (silence breaching), CodeDeploy moving the webhook
// sender's and the calibration's aliases, and the scanner's alias moved behind a probe and then a bake.
import { beforeAll, describe, expect, it } from 'vitest';
import { LIVE_ALIAS } from '../../infra/constructs/ServiceFunction';
import { METRICS } from '../../shared/telemetry/metrics';
import {
  actionsOf,
  CALIBRATION_ON,
  logicalIdOf,
  propOf,
  type Resource,
  resourcesOf,
  roleOfFunction,
  type SynthesizedApp,
  statementsOfRole,
  synthApp,
} from './synthApp';

let built: SynthesizedApp;
beforeAll(() => {
  built = synthApp(CALIBRATION_ON);
});

const resources = (type: string) => resourcesOf(built.serviceTemplate, type);
const text = (value: unknown) => JSON.stringify(value ?? null);
const alarms = () => Object.values(resources('AWS::CloudWatch::Alarm'));
const alarmNamed = (suffix: string): Resource | undefined =>
  alarms().find((alarm) => String(alarm.Properties?.AlarmName).endsWith(`-${suffix}`));

/** An alarm watching the function's Errors: on the alarm itself, or as an input of its expression. */
const watchesErrorsOf = (alarm: Resource, functionId: string): boolean => {
  const props = alarm.Properties ?? {};
  const ref = text({ Name: 'FunctionName', Value: { Ref: functionId } });
  if (props.MetricName === 'Errors' && text(props.Dimensions).includes(ref)) return true;
  return ((props.Metrics as { MetricStat?: { Metric: unknown } }[] | undefined) ?? []).some(
    (query) => text(query.MetricStat?.Metric).includes('"MetricName":"Errors"') && text(query).includes(ref),
  );
};

const aliasOfFunction = (functionId: string) =>
  Object.values(resources('AWS::Lambda::Alias')).find(
    (alias) => text(alias.Properties?.FunctionName) === text({ Ref: functionId }),
  ) as
    | (Resource & { UpdatePolicy?: { CodeDeployLambdaAliasUpdate?: Record<string, { Ref: string }> } })
    | undefined;

const functionWith = (variable: string) =>
  Object.entries(resources('AWS::Lambda::Function')).find(([, fn]) =>
    text(fn.Properties?.Environment).includes(variable),
  )?.[0] ?? '';

describe('paging', () => {
  it('gives every function of the stack an Errors alarm', () => {
    const functions = Object.keys(resources('AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThanOrEqual(8);
    const unwatched = functions.filter((id) => !alarms().some((alarm) => watchesErrorsOf(alarm, id)));
    expect(unwatched).toEqual([]);
  });

  it("alarms on the webhook sender's stream falling behind and its retries waiting too long", () => {
    const sender = logicalIdOf(built.service.node.findChild('Webhooks').node.findChild('Sender'));
    expect(alarmNamed('WebhookIteratorAge')?.Properties).toMatchObject({
      MetricName: 'IteratorAge',
      Namespace: 'AWS/Lambda',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: sender } }],
      Threshold: 60_000,
    });
    expect(alarmNamed('WebhookRetryAge')?.Properties).toMatchObject({
      MetricName: 'ApproximateAgeOfOldestMessage',
      Namespace: 'AWS/SQS',
      Threshold: 1800,
    });
  });

  it('pages when the calibration stops finishing runs: missing data breaches, two periods', () => {
    const heartbeat = alarmNamed('CalibrationHeartbeat')?.Properties;
    const [query] = (heartbeat?.Metrics ?? []) as {
      MetricStat: { Metric: unknown; Period: number; Stat: string };
    }[];
    expect(query?.MetricStat).toMatchObject({
      Metric: { MetricName: METRICS.calibrationHeartbeat.name, Namespace: 'InboxPlacement' },
      Period: 6 * 3600,
      Stat: 'Sum',
    });
    expect(heartbeat).toMatchObject({
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      DatapointsToAlarm: 2,
      EvaluationPeriods: 2,
      TreatMissingData: 'breaching',
    });
    expect(alarmNamed('CalibrationErrors')).toBeDefined();
  });
});

describe('deploys', () => {
  const groupOf = (functionId: string): Resource | undefined => {
    const update = aliasOfFunction(functionId)?.UpdatePolicy?.CodeDeployLambdaAliasUpdate;
    const name = update?.DeploymentGroupName?.Ref;
    return name === undefined ? undefined : resources('AWS::CodeDeploy::DeploymentGroup')[name];
  };
  const alarmRefs = (group: Resource | undefined) =>
    propOf<{ Alarms: { Name: { Ref: string } }[] }>(group, 'AlarmConfiguration').Alarms.map(
      (alarm) => resources('AWS::CloudWatch::Alarm')[alarm.Name.Ref]?.Properties?.AlarmName,
    );

  it('moves the webhook sender by canary, rolled back on its errors', () => {
    const sender = functionWith('WEBHOOK_QUEUE_URL');
    const group = groupOf(sender);
    expect(group?.Properties?.DeploymentConfigName).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
    expect(alarmRefs(group)).toEqual(
      expect.arrayContaining([
        'InboxPlacementService-WebhookSenderErrors',
        'InboxPlacementService-SenderDeployErrors',
      ]),
    );
  });

  it('moves the calibration all at once, rolled back on its errors', () => {
    const group = groupOf(functionWith('CONTROL_SENDER_SECRET_ID'));
    expect(group?.Properties?.DeploymentConfigName).toBe('CodeDeployDefault.LambdaAllAtOnce');
    expect(alarmRefs(group)).toEqual(['InboxPlacementService-CalibrationErrors']);
  });

  it('moves the scanner after the probe, and succeeds only after the bake hook', () => {
    const update = aliasOfFunction(logicalIdOf(built.service.scanner))?.UpdatePolicy
      ?.CodeDeployLambdaAliasUpdate;
    const bake = functionWith('BAKE_MS');
    expect(update?.AfterAllowTrafficHook).toEqual({ Ref: bake });
    expect(update?.BeforeAllowTrafficHook?.Ref).not.toBe(bake);
    const env = propOf<{ Variables: Record<string, unknown> }>(
      resources('AWS::Lambda::Function')[bake],
      'Environment',
    ).Variables;
    expect(env).toMatchObject({ LIVE_ALIAS_NAME: LIVE_ALIAS, BAKE_MS: '600000' });
    const version = resources('AWS::Lambda::Version')[(env.SCANNER_VERSION_ARN as { Ref: string }).Ref];
    expect(version?.Properties?.FunctionName).toEqual({ Ref: logicalIdOf(built.service.scanner) });
    const actions = statementsOfRole(
      built.serviceTemplate,
      roleOfFunction(built.serviceTemplate, bake),
    ).flatMap(actionsOf);
    expect(actions.sort()).toEqual([
      'cloudwatch:GetMetricData',
      'codedeploy:PutLifecycleEventHookExecutionStatus',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
  });
});
