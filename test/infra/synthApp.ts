// Builds the CDK app as `cdk synth` does (cdk.json's context, plus the test's), without bundling unless asked, and
// offers small readers over the synthesized templates.
import { readFileSync } from 'node:fs';
import { type AppProps, type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { createApp, type InboxPlacementApp } from '../../infra/createApp';

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

/** Feature flags and defaults from cdk.json, as the CLI would pass them. */
export const CDK_JSON_CONTEXT = cdkJson.context;

/** Skips asset bundling for every stack: the templates are the same, and no esbuild run per test. */
const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

export interface SynthesizedApp extends InboxPlacementApp {
  dataTemplate: Template;
  serviceTemplate: Template;
}

/** The context that turns the calibration on (its schedule, function, metrics and alarms). */
export const CALIBRATION_ON = { calibrationEvery: '6h', controlFrom: 'control@sender.example' };

export const synthApp = (context: Record<string, unknown> = {}, props: AppProps = {}): SynthesizedApp => {
  const built = createApp({ ...props, context: { ...CDK_JSON_CONTEXT, ...NO_BUNDLING, ...context } });
  return {
    ...built,
    dataTemplate: Template.fromStack(built.data),
    serviceTemplate: Template.fromStack(built.service),
  };
};

/** The logical ID a construct's CloudFormation resource gets in its stack. */
export const logicalIdOf = (construct: IConstruct): string => {
  const resource = construct.node.defaultChild as CfnElement | undefined;
  if (!resource) throw new Error(`${construct.node.path} has no CloudFormation resource`);
  return Stack.of(construct).getLogicalId(resource);
};

export interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Metadata?: Record<string, unknown>;
}

export const resourcesOf = (template: Template, type?: string): Record<string, Resource> => {
  const all = template.toJSON().Resources as Record<string, Resource>;
  return Object.fromEntries(Object.entries(all).filter(([, r]) => type === undefined || r.Type === type));
};

/** One property of a resource, failing the test when the resource or the property is missing. */
export const propOf = <T>(resource: Resource | undefined, name: string): T => {
  const value = resource?.Properties?.[name];
  if (value === undefined) throw new Error(`no property ${name} in ${JSON.stringify(resource)}`);
  return value as T;
};

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

export const actionsOf = (statement: Statement): string[] =>
  Array.isArray(statement.Action) ? statement.Action : [statement.Action];

/** Every statement of every AWS::IAM::Policy attached to the role with this logical ID. */
export const statementsOfRole = (template: Template, roleLogicalId: string): Statement[] =>
  Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties?.Roles).includes(`"Ref":"${roleLogicalId}"`))
    .flatMap((policy) => propOf<{ Statement: Statement[] }>(policy, 'PolicyDocument').Statement);

/** The role a Lambda function resource runs as. */
export const roleOfFunction = (template: Template, functionLogicalId: string): string => {
  const fn = resourcesOf(template)[functionLogicalId];
  const role = (fn?.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
  if (!role) throw new Error(`${functionLogicalId} has no role`);
  return role;
};

/** An Fn::Join of strings and intrinsics, as one string with each intrinsic replaced by `placeholder`. */
export const joinWithPlaceholders = (value: unknown, placeholder = 'TOKEN'): string => {
  if (typeof value === 'string') return value;
  const join = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (!join) throw new Error(`not an Fn::Join: ${JSON.stringify(value)}`);
  return join[1].map((part) => (typeof part === 'string' ? part : placeholder)).join(join[0]);
};
