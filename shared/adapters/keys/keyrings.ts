// Owns where the sealing key lives: a customer-managed KMS key on AWS (its client supplied by the composition, one
// per process and traced), the local store's key file under npm start, each as a keyring for EnvelopeSealer.

import { KmsKeyringNode, RawAesKeyringNode, RawAesWrappingSuiteIdentifier } from '@aws-crypto/client-node';
import { KMS } from '@aws-sdk/client-kms';

export interface KmsEndpoint {
  region: string;
  /** A loopback stand-in in tests; AWS's own endpoint otherwise. */
  endpoint?: string | undefined;
}

/**
 * A KMS client (the aggregated `KMS`, whose methods the keyring calls; it is a `KMSClient` with the same middleware
 * stack, so the Tracer captures it like any other client).
 */
export const kmsClient = (endpoint: KmsEndpoint): KMS =>
  new KMS({
    region: endpoint.region,
    // A local endpoint takes any signature (as the DynamoDB client does for DynamoDB Local).
    ...(endpoint.endpoint
      ? { endpoint: endpoint.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });

/** The KMS key seals and opens; `client` answers for every call, whatever region the SDK asks about. */
export const kmsKeyring = (keyArn: string, client: () => KMS): KmsKeyringNode =>
  new KmsKeyringNode({ generatorKeyId: keyArn, clientProvider: () => client() });

/** The local store's 32-byte key wraps each data key (AES-GCM); same message format as on AWS. */
export const fileKeyring = (key: Buffer): RawAesKeyringNode =>
  new RawAesKeyringNode({
    keyName: 'item-key',
    keyNamespace: 'inbox-placement-local',
    unencryptedMasterKey: new Uint8Array(key),
    wrappingSuite: RawAesWrappingSuiteIdentifier.AES256_GCM_IV12_TAG16_NO_PADDING,
  });
