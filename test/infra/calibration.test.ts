// The calibration on AWS: absent unless -c calibrationEvery is set (synth says in one line how to turn it on); when
// set, a schedule, a function with its own role (the control sender's secret, the control check, the seeds' history
// by key prefix, accounts through their index only), the sender's secret, alarms per provider and a dashboard row.
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CALIBRATION_OFF, DEFAULT_SETTINGS } from '../../infra/settings';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { PROVIDERS } from '../../shared/providers/providerPreset';
import {
  actionsOf,
  CALIBRATION_ON,
  propOf,
  type Resource,
  resourcesOf,
  roleOfFunction,
  type SynthesizedApp,
  statementsOfRole,
  synthApp,
} from './synthApp';

const ON = CALIBRATION_ON;
let off: SynthesizedApp;
let on: SynthesizedApp;

beforeAll(() => {
  off = synthApp();
  on = synthApp(ON);
});

const calibrationFunctions = (app: SynthesizedApp): [string, Resource][] =>
  Object.entries(resourcesOf(app.serviceTemplate, 'AWS::Lambda::Function')).filter(([, fn]) =>
    JSON.stringify(fn.Properties?.Environment ?? {}).includes('CONTROL_FROM'),
  );

describe('the calibration on AWS', () => {
  it('is off by default, and synth says in one line how to turn it on', () => {
    expect(calibrationFunctions(off)).toEqual([]);
    expect(CALIBRATION_OFF).not.toContain('\n');
    expect(CALIBRATION_OFF).toContain('-c calibrationEvery=6h -c controlFrom=');
    Annotations.fromStack(off.service).hasInfo('/InboxPlacementService', CALIBRATION_OFF);
    Annotations.fromStack(on.service).hasNoInfo('*', CALIBRATION_OFF);
  });

  it('runs one function on the schedule, one run at a time, with its own secret and From', () => {
    const [[id, fn] = ['', undefined]] = calibrationFunctions(on);
    expect(fn?.Properties).toMatchObject({ Timeout: 600, ReservedConcurrentExecutions: 1 });
    const variables = propOf<{ Variables: Record<string, unknown> }>(fn, 'Environment').Variables;
    expect(variables.CONTROL_FROM).toBe(ON.controlFrom);
    const [secretId] = Object.keys(resourcesOf(on.serviceTemplate, 'AWS::SecretsManager::Secret'));
    expect(variables.CONTROL_SENDER_SECRET_ID).toEqual({ Ref: secretId });
    // The schedule calls the live alias of that function: the version that passed the deploy.
    const [aliasId] = Object.entries(resourcesOf(on.serviceTemplate, 'AWS::Lambda::Alias')).find(
      ([, alias]) => JSON.stringify(alias.Properties?.FunctionName) === JSON.stringify({ Ref: id }),
    ) ?? [''];
    expect(aliasId).not.toBe('');
    on.serviceTemplate.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(6 hours)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: { Ref: aliasId } })]),
    });
  });

  it('gives it a role of its own: its secret, its item kinds by key prefix, accounts through their index only', () => {
    const [[id] = ['']] = calibrationFunctions(on);
    const role = roleOfFunction(on.serviceTemplate, id);
    const others = Object.values(on.service.functions).map((fn) =>
      on.service.getLogicalId(fn.role?.node.defaultChild as never),
    );
    expect(others).not.toContain(role);
    const statements = statementsOfRole(on.serviceTemplate, role);
    const text = JSON.stringify(statements);
    const [secretId] = Object.keys(resourcesOf(on.serviceTemplate, 'AWS::SecretsManager::Secret'));
    const secretReads = statements.filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'));
    expect(secretReads.map((s) => s.Resource)).toEqual([{ Ref: secretId }]);
    expect(statements.flatMap(actionsOf).filter((a) => /secretsmanager:(Put|Update)/.test(a))).toEqual([]);
    for (const prefix of ['SEEDHISTORY#*', 'CONTROLRUN#*', 'CHECK#*', 'MONITORRUN#*'])
      expect(text).toContain(prefix);
    // A control run is kept as the calibration monitor's run; a stored monitor's message is never its to read.
    expect(text).not.toContain('MONITORMSG#*');
    // Never the registration nor the credentials items themselves.
    expect(text).not.toContain('ACCOUNT#*');
    expect(text).not.toContain('CREDS#*');
    const onIndex = statements.filter((s) =>
      JSON.stringify(s.Resource).includes(`/index/${TABLE_SCHEMA.accountsByScope.name}`),
    );
    expect(onIndex.flatMap(actionsOf).sort()).toEqual(['dynamodb:Query', 'dynamodb:Scan']);
  });

  it('alarms per provider when the control inbox rate falls under the threshold, and draws the rate and suspects', () => {
    const alarms = Object.values(resourcesOf(on.serviceTemplate, 'AWS::CloudWatch::Alarm')).filter(
      (alarm) => alarm.Properties?.MetricName === 'ControlInbox',
    );
    expect(alarms).toHaveLength(PROVIDERS.length);
    for (const alarm of alarms)
      expect(alarm.Properties).toMatchObject({
        ComparisonOperator: 'LessThanThreshold',
        Threshold: DEFAULT_SETTINGS.controlInboxAlarmThreshold,
        Statistic: 'Average',
        Period: 6 * 3600,
        DatapointsToAlarm: 2,
        EvaluationPeriods: 3,
        TreatMissingData: 'notBreaching',
      });
    const custom = synthApp({ ...ON, controlInboxAlarmThreshold: '0.5' });
    custom.serviceTemplate.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ControlInbox',
      Threshold: 0.5,
    });
    const [dashboard] = Object.values(resourcesOf(on.serviceTemplate, 'AWS::CloudWatch::Dashboard'));
    const body = JSON.stringify(dashboard?.Properties?.DashboardBody);
    expect(body).toContain('Control inbox rate by provider');
    expect(body).toContain('SuspectSeeds');
  });

  it('refuses a schedule without a From, one too tight for a control check, and a threshold over 1', () => {
    expect(() => synthApp({ calibrationEvery: '6h' })).toThrow(
      /context "controlFrom" must be an email address/,
    );
    expect(() => synthApp({ ...ON, calibrationEvery: '5m' })).toThrow(
      /"calibrationEvery" must be a duration from 15m/,
    );
    expect(() => synthApp({ ...ON, controlInboxAlarmThreshold: '2' })).toThrow(
      /"controlInboxAlarmThreshold"/,
    );
  });
});
