// The operator CLI finds a deployed table and secret from the data stack's outputs, whose names infra publishes.
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { DATA_STACK, dataStackOf, findDeployedStore } from '../../shared/cli/stackOutputs';
import { InvalidInputError } from '../../shared/domain/errors';

const answering = (outputs: { OutputKey: string; OutputValue: string }[] | Error) =>
  ({
    send: async () => {
      if (outputs instanceof Error) throw outputs;
      return { Stacks: [{ Outputs: outputs }] };
    },
  }) as unknown as CloudFormationClient;

describe('findDeployedStore', () => {
  it('reads the TableName, CredentialsSecretArn and SealingKeyArn outputs', async () => {
    const store = await findDeployedStore(
      answering([
        { OutputKey: 'TableName', OutputValue: 'InboxPlacementData-Table' },
        { OutputKey: 'CredentialsSecretArn', OutputValue: 'arn:aws:secretsmanager:eu-west-1:1:secret:x' },
        { OutputKey: 'SealingKeyArn', OutputValue: 'arn:aws:kms:eu-west-1:1:key/k' },
      ]),
      DATA_STACK,
    );
    expect(store).toEqual({
      table: 'InboxPlacementData-Table',
      secret: 'arn:aws:secretsmanager:eu-west-1:1:secret:x',
      sealingKey: 'arn:aws:kms:eu-west-1:1:key/k',
    });
  });

  it('says plainly when the stack is the wrong one or cannot be read', async () => {
    await expect(
      findDeployedStore(answering([{ OutputKey: 'ApiUrl', OutputValue: 'x' }]), 'InboxPlacementService'),
    ).rejects.toThrow(/has no TableName\/CredentialsSecretArn outputs/);
    await expect(
      findDeployedStore(answering(new Error('Stack does not exist')), 'nope'),
    ).rejects.toBeInstanceOf(InvalidInputError);
  });
});

describe('dataStackOf', () => {
  it('reads the stage data stack the CDK app names, the bare name without a stage, --stack as given', () => {
    expect(dataStackOf({})).toBe('InboxPlacementData');
    expect(dataStackOf({ stage: 'staging' })).toBe('staging-InboxPlacementData');
    expect(dataStackOf({ stack: 'Custom', stage: 'staging' })).toBe('Custom');
  });

  it('refuses a stage name the CDK app would refuse', () => {
    expect(() => dataStackOf({ stage: 'Staging!' })).toThrow(InvalidInputError);
  });
});
