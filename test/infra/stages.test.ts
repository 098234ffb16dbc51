// A stage prefixes every stack and physical name so two copies share an account; no stage keeps today's names.
import { beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../infra/settings';
import { METRICS_NAMESPACE } from '../../shared/telemetry/metrics';
import { joinWithPlaceholders, propOf, resourcesOf, type SynthesizedApp, synthApp } from './synthApp';

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

let staging: SynthesizedApp;
let production: SynthesizedApp;

describe('stages', () => {
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

  it('shares no metric, alarm, log group, secret, query or parameter name between two stages', () => {
    const production = signals(productionOf());
    const staged = signals(staging);
    for (const kind of Object.keys(production) as (keyof Signals)[]) {
      const shared = production[kind].filter((name) => staged[kind].includes(name));
      expect(shared, kind).toEqual([]);
    }
    // Something was compared in each kind that both stages have.
    for (const kind of ['namespaces', 'alarms', 'secrets', 'queries', 'functionNamespaces'] as const) {
      expect(production[kind].length, kind).toBeGreaterThan(0);
      expect(staged[kind].length, kind).toBeGreaterThan(0);
    }
    expect(production.namespaces).toEqual([METRICS_NAMESPACE]);
    expect(staged.namespaces).toEqual([`${METRICS_NAMESPACE}/staging`]);
  });
});

interface Signals {
  /** The service's own namespaces: in alarms, dashboard rows and SEARCH expressions. */
  namespaces: string[];
  /** What each function emits into (POWERTOOLS_METRICS_NAMESPACE). */
  functionNamespaces: string[];
  alarms: string[];
  /** Explicit log group names, and the stacks every derived one is named after. */
  logGroups: string[];
  secrets: string[];
  queries: string[];
  parameters: string[];
}

/** The production app, synthesized once the staging one has (beforeAll's). */
const productionOf = () => production;

const valuesOf = (template: SynthesizedApp['serviceTemplate'], type: string, property: string): string[] =>
  Object.values(resourcesOf(template, type))
    .map((resource) => resource.Properties?.[property])
    .filter((value) => value !== undefined)
    .map((value) => (typeof value === 'string' ? value : joinWithPlaceholders(value, '<token>')));

const signals = (built: SynthesizedApp): Signals => {
  const templates = [built.dataTemplate, built.serviceTemplate];
  const all = (type: string, property: string) => templates.flatMap((t) => valuesOf(t, type, property));
  const text = JSON.stringify(built.serviceTemplate.toJSON());
  const namespaces = new Set<string>();
  // The namespace ends at a quote, an escaped quote (a dashboard body is JSON in a string), a comma or a brace.
  for (const match of text.matchAll(/InboxPlacement(?:\/[a-z0-9]+)?(?=[\\",}])/g)) namespaces.add(match[0]);
  const functionNamespaces = Object.values(resourcesOf(built.serviceTemplate, 'AWS::Lambda::Function')).map(
    (fn) =>
      propOf<{ Variables: Record<string, string> }>(fn, 'Environment').Variables
        .POWERTOOLS_METRICS_NAMESPACE ?? '',
  );
  return {
    namespaces: [...namespaces],
    functionNamespaces: [...new Set(functionNamespaces)],
    alarms: all('AWS::CloudWatch::Alarm', 'AlarmName'),
    logGroups: [
      ...all('AWS::Logs::LogGroup', 'LogGroupName'),
      // A log group without a name is named by CloudFormation after its stack.
      ...[built.data.stackName, built.service.stackName],
    ],
    secrets: [
      ...all('AWS::SecretsManager::Secret', 'Name'),
      // An unnamed secret is named by CloudFormation after its stack, as a log group is.
      ...(all('AWS::SecretsManager::Secret', 'Name').length === 0 ? [built.data.stackName] : []),
    ],
    queries: all('AWS::Logs::QueryDefinition', 'Name'),
    parameters: all('AWS::SSM::Parameter', 'Name'),
  };
};
