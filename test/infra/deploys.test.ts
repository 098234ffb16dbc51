// Safe deploys in the template: every function behind a `live` alias on a published version, callers invoking the
// aliases, CodeDeploy canaries that roll back on alarms, and the scanner's deploy probe with its narrow role.
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_DEPLOYMENT, DEPLOY_ALARM_THRESHOLDS } from '../../infra/constructs/SafeDeploys';
import { LIVE_ALIAS } from '../../infra/constructs/ServiceFunction';
import {
  actionsOf,
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
  built = synthApp();
});

const stringify = (value: unknown) => JSON.stringify(value);
const resources = (type: string) => resourcesOf(built.serviceTemplate, type);
const ids = () => {
  const { functions } = built.service;
  return {
    start: logicalIdOf(functions.start),
    get: logicalIdOf(functions.get),
    fallback: logicalIdOf(functions.fallback),
    scanner: logicalIdOf(functions.scanner),
  };
};

/** The logical id of the `live` alias of a function, checking that it points at a version of that function. */
const aliasOf = (functionId: string): string => {
  const versions = resources('AWS::Lambda::Version');
  const entry = Object.entries(resources('AWS::Lambda::Alias')).find(
    ([, alias]) => stringify(alias.Properties?.FunctionName) === stringify({ Ref: functionId }),
  );
  if (!entry) throw new Error(`no alias on ${functionId}`);
  const [aliasId, alias] = entry;
  expect(alias.Properties?.Name).toBe(LIVE_ALIAS);
  const versionId = propOf<{ 'Fn::GetAtt': [string, string] }>(alias, 'FunctionVersion')['Fn::GetAtt'][0];
  expect(versions[versionId]?.Properties?.FunctionName).toEqual({ Ref: functionId });
  return aliasId;
};

const groupOf = (aliasId: string): Resource => {
  const alias = resources('AWS::Lambda::Alias')[aliasId];
  const update = (alias as { UpdatePolicy?: Record<string, { DeploymentGroupName: { Ref: string } }> })
    ?.UpdatePolicy?.CodeDeployLambdaAliasUpdate;
  const group = update && resources('AWS::CodeDeploy::DeploymentGroup')[update.DeploymentGroupName.Ref];
  if (!group) throw new Error(`alias ${aliasId} is moved by no deployment group`);
  return group;
};

const alarmNamesOf = (group: Resource): string[] =>
  propOf<{ Alarms: { Name: { Ref: string } }[] }>(group, 'AlarmConfiguration').Alarms.map(
    (alarm) => resources('AWS::CloudWatch::Alarm')[alarm.Name.Ref]?.Properties?.AlarmName as string,
  );

describe('versions and aliases', () => {
  it('publish every service function as a version behind a live alias', () => {
    for (const id of Object.values(ids())) expect(aliasOf(id)).toBeTruthy();
  });

  it('point the API integrations, the schedule and the stream at the aliases, never at $LATEST', () => {
    const { start, get, fallback, scanner } = ids();
    const apiAliases = [start, get, fallback].map(aliasOf).sort();
    const integrated = Object.values(resources('AWS::ApiGatewayV2::Integration'))
      .map((integration) => propOf<{ Ref: string }>(integration, 'IntegrationUri').Ref)
      .sort();
    expect(integrated).toEqual(apiAliases);
    const targets = Object.values(resources('AWS::Events::Rule')).flatMap((rule) =>
      propOf<{ Arn: unknown }[]>(rule, 'Targets').map((target) => target.Arn),
    );
    // The scanner's schedule and the monitors' (test/infra/monitorRuns.test.ts), each at a live alias.
    expect(targets).toContainEqual({ Ref: aliasOf(scanner) });
    const aliases = Object.keys(resources('AWS::Lambda::Alias')).map((id) => ({ Ref: id }));
    for (const target of targets) expect(aliases).toContainEqual(target);
    // The scanner's mapping, by the function or its alias (other functions may read sources of their own).
    const mappings = Object.values(resources('AWS::Lambda::EventSourceMapping')).filter((mapping) =>
      [`"Ref":"${scanner}"`, `"Ref":"${aliasOf(scanner)}"`].some((ref) =>
        stringify(mapping.Properties?.FunctionName).includes(ref),
      ),
    );
    expect(mappings).toHaveLength(1);
    for (const mapping of mappings) {
      // The alias's function name: `<the name in the alias's ARN>:live`.
      expect(stringify(mapping.Properties?.FunctionName)).toContain(`{"Ref":"${aliasOf(scanner)}"}`);
      expect(stringify(mapping.Properties?.FunctionName)).toContain(`":${LIVE_ALIAS}"`);
    }
  });

  it('tell the scanner its alias, so its hand-overs and shards run the version the probe passed', () => {
    const scanner = resources('AWS::Lambda::Function')[ids().scanner];
    expect(propOf<{ Variables: Record<string, unknown> }>(scanner, 'Environment').Variables.LIVE_ALIAS).toBe(
      LIVE_ALIAS,
    );
  });

  it('give the scanner alias the function asynchronous settings: no retry, the dead-letter queue', () => {
    built.serviceTemplate.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids().scanner },
      // The alias's name, taken from its ARN (Fn::Select over Fn::Split).
      Qualifier: Match.objectLike({ 'Fn::Select': Match.anyValue() }),
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 300,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalIdOf(built.service.scannerDeadLetters), 'Arn'] } },
      },
    });
  });
});

describe('deployment groups', () => {
  it('shift each API function by a canary that rolls back on its own error and latency alarms', () => {
    const { start, get, fallback } = ids();
    for (const [name, id] of Object.entries({ Start: start, Get: get, Fallback: fallback })) {
      const group = groupOf(aliasOf(id));
      expect(group.Properties).toMatchObject({
        DeploymentConfigName: API_DEPLOYMENT.deploymentConfigName,
        DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
        AutoRollbackConfiguration: {
          Enabled: true,
          Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
        },
      });
      const names = alarmNamesOf(group);
      expect(names).toEqual(
        expect.arrayContaining([
          `InboxPlacementService-${name}DeployErrors`,
          `InboxPlacementService-${name}DeployLatency`,
          'InboxPlacementService-ApiFunctionErrors',
        ]),
      );
    }
    expect(API_DEPLOYMENT.deploymentConfigName).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
  });

  it('watch each alias for errors and p99 latency, 2 of 3 minutes, quiet minutes not breaching', () => {
    const alias = aliasOf(ids().start);
    const byName = (suffix: string) =>
      Object.values(resources('AWS::CloudWatch::Alarm')).find((alarm) =>
        String(alarm.Properties?.AlarmName).endsWith(suffix),
      );
    const common = {
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      Period: 60,
      TreatMissingData: 'notBreaching',
    };
    expect(byName('-StartDeployErrors')?.Properties).toMatchObject({
      ...common,
      MetricName: 'Errors',
      Statistic: 'Sum',
      Threshold: DEPLOY_ALARM_THRESHOLDS.errors,
    });
    expect(byName('-StartDeployLatency')?.Properties).toMatchObject({
      ...common,
      MetricName: 'Duration',
      ExtendedStatistic: 'p99',
      Threshold: DEPLOY_ALARM_THRESHOLDS.p99DurationMs,
    });
    // On the alias (Resource = function:live), the traffic CodeDeploy shifts, not on the whole function.
    expect(byName('-StartDeployErrors')?.Properties?.Dimensions).toContainEqual({
      Name: 'Resource',
      Value: { 'Fn::Join': ['', [{ Ref: ids().start }, `:${LIVE_ALIAS}`]] },
    });
    expect(alias).toMatch(/^StartAliaslive/);
  });

  it('move the scanner alias all at once, only after the deploy probe hook, rolling back on scanner errors', () => {
    const aliasId = aliasOf(ids().scanner);
    const group = groupOf(aliasId);
    expect(group.Properties?.DeploymentConfigName).toBe('CodeDeployDefault.LambdaAllAtOnce');
    expect(alarmNamesOf(group)).toContain('InboxPlacementService-ScannerErrors');
    const update = (
      resources('AWS::Lambda::Alias')[aliasId] as unknown as { UpdatePolicy: Record<string, unknown> }
    ).UpdatePolicy.CodeDeployLambdaAliasUpdate as { BeforeAllowTrafficHook: { Ref: string } };
    const hook = resources('AWS::Lambda::Function')[update.BeforeAllowTrafficHook.Ref];
    expect(stringify(hook?.Properties?.Environment)).toContain('SCANNER_VERSION_ARN');
  });

  it('let CodeDeploy move the aliases and call the hook with no managed policy and no wildcard write', () => {
    const roles = Object.entries(resources('AWS::IAM::Role')).filter(([, role]) =>
      stringify(role.Properties?.AssumeRolePolicyDocument).includes('codedeploy.amazonaws.com'),
    );
    expect(roles).toHaveLength(1);
    const [[roleId, role]] = roles as [[string, Resource]];
    expect(role.Properties?.ManagedPolicyArns).toBeUndefined();
    for (const statement of statementsOfRole(built.serviceTemplate, roleId)) {
      if (statement.Resource === '*') expect(actionsOf(statement)).toEqual(['cloudwatch:DescribeAlarms']);
    }
  });
});

describe('the deploy probe', () => {
  const hookId = () =>
    Object.entries(resources('AWS::Lambda::Function')).find(
      ([, fn]) =>
        stringify(fn.Properties?.Environment).includes('SCANNER_VERSION_ARN') &&
        !stringify(fn.Properties?.Environment).includes('BAKE_MS'),
    )?.[0] ?? '';

  it('invokes the version being deployed and the scanner alias never invokes it for traffic', () => {
    const env = propOf<{ Variables: { SCANNER_VERSION_ARN: { Ref: string } } }>(
      resources('AWS::Lambda::Function')[hookId()],
      'Environment',
    ).Variables;
    const version = resources('AWS::Lambda::Version')[env.SCANNER_VERSION_ARN.Ref];
    expect(version?.Properties?.FunctionName).toEqual({ Ref: ids().scanner });
  });

  it('has its own role: invoke that version, report the hook status to its deployment group, write its logs', () => {
    const statements = statementsOfRole(
      built.serviceTemplate,
      roleOfFunction(built.serviceTemplate, hookId()),
    );
    const byAction = Object.fromEntries(statements.flatMap((s) => actionsOf(s).map((a) => [a, s.Resource])));
    expect(Object.keys(byAction).sort()).toEqual([
      'codedeploy:PutLifecycleEventHookExecutionStatus',
      'lambda:InvokeFunction',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    const env = stringify(resources('AWS::Lambda::Function')[hookId()]?.Properties?.Environment);
    expect(env).toContain(stringify(byAction['lambda:InvokeFunction']).replace(/^\[|\]$/g, ''));
    expect(stringify(byAction['codedeploy:PutLifecycleEventHookExecutionStatus'])).toContain(
      'deploymentgroup',
    );
  });

  it('lets a probe that checked nothing proceed by default, blocks it with -c uncheckedProbe=block', () => {
    const uncheckedOf = (app: SynthesizedApp) => {
      const hooks = Object.values(resourcesOf(app.serviceTemplate, 'AWS::Lambda::Function'))
        .map((fn) => (fn.Properties?.Environment as { Variables?: Record<string, unknown> })?.Variables)
        .filter((env) => env?.SCANNER_VERSION_ARN !== undefined && env.BAKE_MS === undefined);
      expect(hooks).toHaveLength(1);
      return hooks[0]?.UNCHECKED_PROBE;
    };
    expect(uncheckedOf(built)).toBe('proceed');
    expect(uncheckedOf(synthApp({ uncheckedProbe: 'block' }))).toBe('block');
    expect(() => synthApp({ uncheckedProbe: 'maybe' })).toThrow(/uncheckedProbe.*proceed \| block/);
  });
});
