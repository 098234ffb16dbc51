// Owns finding a deployed stack's table, credentials secret and sealing key from its outputs, for the operator CLI.
import { type CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { InvalidInputError } from '../domain/errors';
import { isStageName, STAGE_RULE, stackNameFor } from '../domain/stages';
import { CAPACITY_OUTPUTS } from '../scanner/scannerCapacity';

/** The default stage's data stack, and the outputs it publishes. */
export const DATA_STACK = stackNameFor('data', undefined);
const TABLE_OUTPUT = 'TableName';
const SECRET_OUTPUT = 'CredentialsSecretArn';
const SEALING_KEY_OUTPUT = 'SealingKeyArn';

export interface DeployedStore {
  table: string;
  secret: string;
  /** The KMS key items are sealed under; undefined for a stack deployed before it had one. */
  sealingKey: string | undefined;
  /** What the deployed scanner holds; undefined for a stack deployed before it published it. */
  capacity: ScannerCapacity | undefined;
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

const outputsOf = async (client: CloudFormationClient, stackName: string) => {
  const { Stacks } = await client
    .send(new DescribeStacksCommand({ StackName: stackName }))
    .catch((error: Error) => {
      throw new InvalidInputError(`cannot read stack ${stackName}: ${error.message}`);
    });
  return new Map((Stacks?.[0]?.Outputs ?? []).map((output) => [output.OutputKey, output.OutputValue]));
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
  const reservation = Number(outputs.get(CAPACITY_OUTPUTS.reservation));
  const shardSize = Number(outputs.get(CAPACITY_OUTPUTS.shardSize));
  const capacity =
    Number.isInteger(reservation) && Number.isInteger(shardSize) && shardSize > 0
      ? { reservation, shardSize }
      : undefined;
  return { table, secret, sealingKey: outputs.get(SEALING_KEY_OUTPUT), capacity };
};
