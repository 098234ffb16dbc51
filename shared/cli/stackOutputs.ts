// Owns finding a deployed stack's table and credentials secret from its CloudFormation outputs, for the operator CLI.
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { InvalidInputError } from '../domain/errors';
import { isStageName, STAGE_RULE, stackNameFor } from '../domain/stages';

/** The default stage's data stack, and the outputs it publishes. */
export const DATA_STACK = stackNameFor('data', undefined);
const TABLE_OUTPUT = 'TableName';
const SECRET_OUTPUT = 'CredentialsSecretArn';

export interface DeployedStore {
  table: string;
  secret: string;
}

/** The data stack to read: --stack as given, else the stage's data stack (infra/createApp.ts names it the same way). */
export const dataStackOf = (flags: { stack?: string | undefined; stage?: string | undefined }): string => {
  if (flags.stack !== undefined) return flags.stack;
  if (flags.stage !== undefined && !isStageName(flags.stage)) {
    throw new InvalidInputError(`--stage must be ${STAGE_RULE}`);
  }
  return stackNameFor('data', flags.stage);
};

export const findDeployedStore = async (
  client: CloudFormationClient,
  stackName: string,
): Promise<DeployedStore> => {
  const { Stacks } = await client
    .send(new DescribeStacksCommand({ StackName: stackName }))
    .catch((error: Error) => {
      throw new InvalidInputError(`cannot read stack ${stackName}: ${error.message}`);
    });
  const outputs = new Map(
    (Stacks?.[0]?.Outputs ?? []).map((output) => [output.OutputKey, output.OutputValue]),
  );
  const table = outputs.get(TABLE_OUTPUT);
  const secret = outputs.get(SECRET_OUTPUT);
  if (!table || !secret) {
    throw new InvalidInputError(
      `stack ${stackName} has no ${TABLE_OUTPUT}/${SECRET_OUTPUT} outputs: is it the data stack?`,
    );
  }
  return { table, secret };
};
