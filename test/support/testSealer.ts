// One sealer for a test process: the local keyring over a random key, the envelope format KMS's keyring writes.
import { randomBytes } from 'node:crypto';
import { EnvelopeSealer } from '../../shared/adapters/keys/EnvelopeSealer';
import { fileKeyring } from '../../shared/adapters/keys/keyrings';

export const TEST_SEALER = new EnvelopeSealer(fileKeyring(randomBytes(32)));
