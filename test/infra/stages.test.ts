// A stage prefixes every stack and physical name so two copies share an account; no stage keeps today's names.
import { beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../infra/settings';
import { propOf, resourcesOf, type SynthesizedApp, synthApp } from './synthApp';

const fromContext = (context: Record<string, unknown>) => readSettings((key) => context[key]);

/** Every explicit name in the service and data templates, by resource type and property. */
const NAMED = [
  ['AWS::CloudWatch::Alarm', 'AlarmName'],
  ['AWS::CloudWatch::Dashboard', 'DashboardName'],
  ['AWS::Lambda::Function', 'FunctionName'],
  ['AWS::ApiGatewayV2::Api', 'Name'],
] as const;

const namesIn = (built: SynthesizedApp): string[] =>
  NAMED.flatMap(([type, property]) =>
    Object.values(resourcesOf(built.serviceTemplate, type))
      .map((resource) => resource.Properties?.[property])
      .filter((name) => name !== undefined)
      .map((name) => JSON.stringify(name)),
  );

describe('stages', () => {
  let staging: SynthesizedApp;
  let production: SynthesizedApp;
  beforeAll(() => {
    staging = synthApp({ stage: 'staging' });
    production = synthApp();
  });

  it('reads -c stage and refuses a name that could not prefix a stack', () => {
    expect(fromContext({}).stage).toBeUndefined();
    expect(fromContext({ stage: 'staging' }).stage).toBe('staging');
    for (const bad of ['Staging', 'st age', '1st', 'a-very-long-stage-name', 42]) {
      expect(() => fromContext({ stage: bad }), String(bad)).toThrow(/context "stage" must be lower-case/);
    }
  });

  it('keeps the unprefixed stack names without a stage, so an existing deploy is updated, not replaced', () => {
    expect([production.data.stackName, production.service.stackName]).toEqual([
      'InboxPlacementData',
      'InboxPlacementService',
    ]);
    const secret = Object.values(resourcesOf(production.dataTemplate, 'AWS::SecretsManager::Secret'));
    expect(secret.map((s) => s.Properties?.Name)).toEqual([undefined]);
    expect(namesIn(production).join(' ')).not.toMatch(/staging/);
  });

  it('prefixes the stacks, the secret, the API and every alarm, dashboard and function name', () => {
    expect([staging.data.stackName, staging.service.stackName]).toEqual([
      'staging-InboxPlacementData',
      'staging-InboxPlacementService',
    ]);
    const secrets = Object.values(resourcesOf(staging.dataTemplate, 'AWS::SecretsManager::Secret'));
    expect(secrets.map((s) => propOf<string>(s, 'Name'))).toEqual(['staging-inbox-placement-credentials']);
    const names = namesIn(staging);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) expect(name).toMatch(/^"staging-/);
  });

  it('derives the table and log group names from the prefixed stack (no fixed name that would collide)', () => {
    for (const template of [staging.dataTemplate, staging.serviceTemplate]) {
      for (const table of Object.values(resourcesOf(template, 'AWS::DynamoDB::Table'))) {
        expect(table.Properties?.TableName).toBeUndefined();
      }
      for (const group of Object.values(resourcesOf(template, 'AWS::Logs::LogGroup'))) {
        expect(group.Properties?.LogGroupName).toBeUndefined();
      }
    }
  });
});
