// The operator CLI's reading of the data stack's outputs and name (test/unit/stackOutputs.test.ts) against what the
// CDK app really synthesizes.
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../infra/createApp';
import { DataStack } from '../../infra/stacks/DataStack';
import { DATA_STACK, dataStackOf } from '../../shared/cli/stackOutputs';

describe('the data stack the operator CLI reads', () => {
  it('outputs the TableName and CredentialsSecretArn the CLI looks for', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const outputs = Template.fromStack(new DataStack(app, DATA_STACK)).findOutputs('*');
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['TableName', 'CredentialsSecretArn']));
  });

  it('is named as dataStackOf names it for a stage', () => {
    const { data } = createApp({ context: { 'aws:cdk:bundling-stacks': [], stage: 'staging' } });
    expect(data.stackName).toBe(dataStackOf({ stage: 'staging' }));
  });
});
