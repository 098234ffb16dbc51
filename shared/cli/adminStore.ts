// Owns where `npm run admin` works: the local store and config file, or a deployed stack's table and credentials
// secret (found from its outputs, or named with --table and --secret).

import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type AccountEntries,
  FileAccountEntries,
  SecretAccountEntries,
} from '../adapters/credentials/accountEntries';
import { createDocumentClient } from '../adapters/dynamo/client';
import type { CliSettings } from '../config';
import { InvalidInputError } from '../domain/errors';
import { ensureTable } from '../local/bootstrap';
import { LOCAL_TABLE, openLocalStore } from '../local/localStore';
import { dataStackOf, findDeployedStore } from './stackOutputs';

export interface AdminStore {
  client: DynamoDBDocumentClient;
  table: string;
  /** Where credentials live: the local config file, or the deployed stack's secret. */
  entries: AccountEntries;
  close(): Promise<void>;
}

export interface StoreFlags {
  stack?: string;
  /** The stage whose data stack to read (`-c stage=` at deploy), when --stack is not given. */
  stage?: string;
  table?: string;
  secret?: string;
  region?: string;
}

const noSecret: AccountEntries = {
  read: async () => {
    throw new InvalidInputError(
      'this command needs the credentials secret: add --secret (the CredentialsSecretArn output)',
    );
  },
  update: async () => {
    throw new InvalidInputError(
      'this command needs the credentials secret: add --secret (the CredentialsSecretArn output)',
    );
  },
};

export const openAdminStore = async (settings: CliSettings, flags: StoreFlags): Promise<AdminStore> => {
  const { table: tableFlag, secret: secretFlag, region } = flags;
  const stack = flags.stack !== undefined || flags.stage !== undefined ? dataStackOf(flags) : undefined;
  if (stack !== undefined || tableFlag) {
    const awsRegion = region ?? settings.awsRegion;
    if (!awsRegion) throw new InvalidInputError('a deployed stack needs --region (or AWS_REGION)');
    const deployed =
      stack !== undefined
        ? await findDeployedStore(new CloudFormationClient({ region: awsRegion }), stack)
        : undefined;
    const table = tableFlag ?? deployed?.table;
    if (!table) throw new InvalidInputError('no table: give --stack or --table');
    const secret = secretFlag ?? deployed?.secret;
    const client = createDocumentClient({ region: awsRegion });
    const entries = secret
      ? new SecretAccountEntries(new SecretsManagerClient({ region: awsRegion }), secret)
      : noSecret;
    return { client, table, entries, close: async () => client.destroy() };
  }
  const local = await openLocalStore(settings.dataDir);
  await ensureTable(local.client, LOCAL_TABLE);
  const entries = new FileAccountEntries(settings.localConfig);
  return { client: local.client, table: LOCAL_TABLE, entries, close: () => local.close() };
};
