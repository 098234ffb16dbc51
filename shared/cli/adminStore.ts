// Owns where `npm run admin` works: the local store and config file, or a deployed stack's table, credentials secret
// and sealing KMS key (found from its outputs, or named with --table, --secret and --kms-key).

import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { FileAccountEntries, SecretAccountEntries } from '../adapters/credentials/accountEntries';
import { type CredentialStore, DocumentCredentialStore } from '../adapters/credentials/credentialStore';
import { ItemCredentialStore } from '../adapters/credentials/ItemCredentialStore';
import { createDocumentClient } from '../adapters/dynamo/client';
import { kmsSealer } from '../composition/sealing';
import type { CliSettings } from '../config';
import { systemClock } from '../domain/clock';
import { InvalidInputError } from '../domain/errors';
import type { Sealer } from '../domain/sealer';
import { ensureTable } from '../local/bootstrap';
import { localItemKey, localSealer } from '../local/localItemKey';
import { LOCAL_TABLE, openLocalStore } from '../local/localStore';
import { dataStackOf, findDeployedStore, type ScannerCapacity } from './stackOutputs';

export interface AdminStore {
  client: DynamoDBDocumentClient;
  table: string;
  /** Where credentials live: the local config file, or the deployed stack's items and their secret. */
  credentials: CredentialStore;
  /** Seals credentials, webhook secrets and monitor messages: the stack's KMS key, or the local store's key file. */
  sealer: Sealer;
  /** The credentials secret's document on AWS (its old `itemKey` and any account not moved yet), for `reseal`. */
  secretEntries?: SecretAccountEntries | undefined;
  /** The key values were sealed with before the envelope (`v1.`): the secret's old itemKey, or the local key file. */
  legacyItemKey(): Promise<string | undefined>;
  /** The deployed scanner's reservation and shard size, which `accounts add` keeps the mailboxes within. */
  capacity?: ScannerCapacity | undefined;
  close(): Promise<void>;
}

export interface StoreFlags {
  stack?: string;
  /** The stage whose data stack to read (`-c stage=` at deploy), when --stack is not given. */
  stage?: string;
  table?: string;
  secret?: string;
  /** The KMS key items are sealed under (the SealingKeyArn output), when --table names the table. */
  'kms-key'?: string;
  region?: string;
}

const needsSecret = async (): Promise<never> => {
  throw new InvalidInputError(
    'this command needs the credentials secret: add --secret (the CredentialsSecretArn output)',
  );
};
const needsKey = async (): Promise<never> => {
  throw new InvalidInputError('this command needs the sealing key: add --kms-key (the SealingKeyArn output)');
};
const noKey: Sealer = { seal: needsKey, open: needsKey };

const noSecret: CredentialStore = {
  entry: needsSecret,
  updateEntry: needsSecret,
  put: needsSecret,
  remove: needsSecret,
  count: needsSecret,
};

export const openAdminStore = async (settings: CliSettings, flags: StoreFlags): Promise<AdminStore> => {
  const { table: tableFlag, secret: secretFlag, region } = flags;
  const stack = flags.stack !== undefined || flags.stage !== undefined ? dataStackOf(flags) : undefined;
  if (stack !== undefined || tableFlag) {
    const awsRegion = region ?? settings.awsRegion;
    if (!awsRegion) throw new InvalidInputError('a deployed stack needs --region (or AWS_REGION)');
    const cloudFormation = new CloudFormationClient({ region: awsRegion });
    const deployed = stack !== undefined ? await findDeployedStore(cloudFormation, stack) : undefined;
    const table = tableFlag ?? deployed?.table;
    if (!table) throw new InvalidInputError('no table: give --stack or --table');
    const secret = secretFlag ?? deployed?.secret;
    const client = createDocumentClient({ region: awsRegion });
    const entries = secret
      ? new SecretAccountEntries(new SecretsManagerClient({ region: awsRegion }), secret)
      : undefined;
    const key = flags['kms-key'] ?? deployed?.sealingKey;
    const sealer = key ? kmsSealer({ AWS_REGION: awsRegion, SEALING_KEY_ARN: key }) : noKey;
    const credentials = entries
      ? new ItemCredentialStore(client, table, entries, { clock: systemClock, sealer })
      : noSecret;
    return {
      client,
      table,
      credentials,
      sealer,
      secretEntries: entries,
      legacyItemKey: async () => (entries ? (await entries.readDocument()).itemKey : undefined),
      capacity: deployed?.capacity,
      close: async () => client.destroy(),
    };
  }
  const local = await openLocalStore(settings.dataDir);
  await ensureTable(local.client, LOCAL_TABLE);
  const credentials = new DocumentCredentialStore(new FileAccountEntries(settings.localConfig));
  const sealer = localSealer(settings.dataDir);
  return {
    client: local.client,
    table: LOCAL_TABLE,
    credentials,
    sealer,
    legacyItemKey: async () => localItemKey(settings.dataDir),
    close: () => local.close(),
  };
};
