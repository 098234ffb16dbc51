// Owns the AWS sealer: the deployment's customer-managed KMS key, one client and one data-key cache per process,
// shared by every store of the function that seals or opens.
import { EnvelopeSealer } from '../adapters/keys/EnvelopeSealer';
import { kmsKeyring } from '../adapters/keys/keyrings';
import type { Sealer } from '../domain/sealer';

export const kmsSealer = (settings: { AWS_REGION: string; SEALING_KEY_ARN: string }): Sealer =>
  new EnvelopeSealer(kmsKeyring(settings.SEALING_KEY_ARN, { region: settings.AWS_REGION }));
