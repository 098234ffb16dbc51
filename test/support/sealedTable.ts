// A table on dynalite and a sealer through the real KMS client to the loopback KMS stand-in: what the sealing tests
// (reseal, legacy credential items) start before and stop after.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { EnvelopeSealer } from '../../shared/adapters/keys/EnvelopeSealer';
import { kmsClient, kmsKeyring } from '../../shared/adapters/keys/keyrings';
import type { Sealer } from '../../shared/domain/sealer';
import { ensureTable } from '../../shared/local/bootstrap';
import { startDynalite } from '../../shared/local/dynalite';
import { LOOPBACK_KEY_ARN, LoopbackKms } from './LoopbackKms';

export interface SealedTable {
  client: DynamoDBDocumentClient;
  sealer: Sealer;
  /** The stand-in, for counting its calls. */
  kms: LoopbackKms;
  stop(): Promise<void>;
}

export const startSealedTable = async (table: string): Promise<SealedTable> => {
  const dynamo = await startDynalite({});
  const client = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
  await ensureTable(client, table);
  const kms = new LoopbackKms();
  const kmsOnLoopback = kmsClient({ region: 'local', endpoint: await kms.start() });
  return {
    client,
    sealer: new EnvelopeSealer(kmsKeyring(LOOPBACK_KEY_ARN, () => kmsOnLoopback)),
    kms,
    stop: async () => {
      client.destroy();
      await dynamo.close();
      await kms.stop();
    },
  };
};
