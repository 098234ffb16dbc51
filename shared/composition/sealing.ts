// Owns the AWS sealer: the deployment's customer-managed KMS key, one traced client and one data-key cache per
// process, shared by every store of the function that seals or opens.
import type { KMS } from '@aws-sdk/client-kms';
import { EnvelopeSealer } from '../adapters/keys/EnvelopeSealer';
import { kmsClient, kmsKeyring } from '../adapters/keys/keyrings';
import { traced } from '../adapters/telemetry/tracing';
import type { Sealer } from '../domain/sealer';

let processKms: KMS | undefined;

/**
 * The keyring's client supplier: one KMS client per process, made at the first seal or open and registered with
 * the Tracer, so a trace shows each GenerateDataKey and Decrypt as it shows every other AWS call.
 */
export const kmsClientSupplier =
  (region: string): (() => KMS) =>
  () => {
    processKms ??= traced(kmsClient({ region }));
    return processKms;
  };

export const kmsSealer = (settings: { AWS_REGION: string; SEALING_KEY_ARN: string }): Sealer =>
  new EnvelopeSealer(kmsKeyring(settings.SEALING_KEY_ARN, kmsClientSupplier(settings.AWS_REGION)));
