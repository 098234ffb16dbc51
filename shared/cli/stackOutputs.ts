// Owns finding a deployed stack's table and credentials secret from its CloudFormation outputs, for the operator CLI.
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { InvalidInputError } from '../domain/errors';
import { isStageName, STAGE_RULE, stackNameFor } from '../domain/stages';
import { CAPACITY_OUTPUTS } from '../scanner/scannerCapacity';

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

export interface ScannerCapacity {
  reservation: number;
  shardSize: number;
}

/** The service stack beside a data stack: the stage's, or the --stack name with its role swapped. */
export const serviceStackOf = (dataStack: string): string =>
  dataStack.endsWith(stackNameFor('data', undefined))
    ? `${dataStack.slice(0, -stackNameFor('data', undefined).length)}${stackNameFor('service', undefined)}`
    : dataStack;

const outputsOf = async (client: CloudFormationClient, stackName: string) => {
  const { Stacks } = await client
    .send(new DescribeStacksCommand({ StackName: stackName }))
    .catch((error: Error) => {
      throw new InvalidInputError(`cannot read stack ${stackName}: ${error.message}`);
    });
  return new Map((Stacks?.[0]?.Outputs ?? []).map((output) => [output.OutputKey, output.OutputValue]));
};

/** What the deployed scanner holds; undefined for a stack deployed before it published these outputs. */
export const findScannerCapacity = async (
  client: CloudFormationClient,
  serviceStack: string,
): Promise<ScannerCapacity | undefined> => {
  const outputs = await outputsOf(client, serviceStack);
  const reservation = Number(outputs.get(CAPACITY_OUTPUTS.reservation));
  const shardSize = Number(outputs.get(CAPACITY_OUTPUTS.shardSize));
  return Number.isInteger(reservation) && Number.isInteger(shardSize) && shardSize > 0
    ? { reservation, shardSize }
    : undefined;
};

export const findDeployedStore = async (
  client: CloudFormationClient,
  stackName: string,
): Promise<DeployedStore> => {
  const outputs = await outputsOf(client, stackName);
  const table = outputs.get(TABLE_OUTPUT);
  const secret = outputs.get(SECRET_OUTPUT);
  if (!table || !secret) {
    throw new InvalidInputError(
      `stack ${stackName} has no ${TABLE_OUTPUT}/${SECRET_OUTPUT} outputs: is it the data stack?`,
    );
  }
  return { table, secret };
};
