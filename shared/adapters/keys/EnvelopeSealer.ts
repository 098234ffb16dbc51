// Owns envelope sealing with the AWS Encryption SDK: one data key per message from a keyring (KMS on AWS, the local
// key file under npm start), the seal context as the message's encryption context, data keys cached per process.
import {
  AlgorithmSuiteIdentifier,
  buildClient,
  CommitmentPolicy,
  getLocalCryptographicMaterialsCache,
  type KeyringNode,
  NodeCachingMaterialsManager,
} from '@aws-crypto/client-node';
import type { SealContext, Sealer } from '../../domain/sealer';

// One encrypted data key per message: a hostile value with thousands of them would cost a KMS call each.
const { encrypt, decrypt } = buildClient({
  commitmentPolicy: CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT,
  maxEncryptedDataKeys: 1,
});
// Key commitment without signatures: every reader is a writer of the same deployment, and signing would add a
// public key to the encryption context that the key policy's conditions would have to allow.
const SUITE = AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY;
const VERSION = 'v2.';
/** Largest sealed message opened: a monitor's 1 MB message and its header, nothing bigger. */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

export interface DataKeyCache {
  /** Data keys kept (encrypt and decrypt entries together). */
  capacity: number;
  maxAgeMs: number;
  /** Messages sealed under one data key before a new one is asked for. */
  maxMessagesPerKey: number;
}

/** Bounds that keep KMS calls to about one per item per five minutes in a warm Lambda. */
const DEFAULT_DATA_KEY_CACHE: DataKeyCache = {
  capacity: 1000,
  maxAgeMs: 5 * 60_000,
  maxMessagesPerKey: 1000,
};

/** Opens what an older key sealed (`v1.`), so the local store and the migration read values sealed before. */
export type LegacyOpen = (sealed: string, context: SealContext) => Promise<string>;

const encryptionContextOf = (context: SealContext): Record<string, string> => ({
  purpose: context.purpose,
  item: context.item,
});

const sameContext = (found: Record<string, string>, wanted: Record<string, string>) =>
  Object.keys(found).length === Object.keys(wanted).length &&
  Object.entries(wanted).every(([key, value]) => found[key] === value);

export class EnvelopeSealer implements Sealer {
  private readonly materials: NodeCachingMaterialsManager;

  constructor(
    keyring: KeyringNode,
    cache: DataKeyCache = DEFAULT_DATA_KEY_CACHE,
    private readonly legacy?: LegacyOpen,
  ) {
    this.materials = new NodeCachingMaterialsManager({
      backingMaterials: keyring,
      cache: getLocalCryptographicMaterialsCache(cache.capacity),
      maxAge: cache.maxAgeMs,
      maxMessagesEncrypted: cache.maxMessagesPerKey,
      partition: 'inbox-placement',
    });
  }

  async seal(plain: string, context: SealContext): Promise<string> {
    try {
      const { result } = await encrypt(this.materials, Buffer.from(plain, 'utf8'), {
        encryptionContext: encryptionContextOf(context),
        suiteId: SUITE,
      });
      return `${VERSION}${result.toString('base64')}`;
    } catch (error) {
      throw new Error(`${context.item} could not be sealed (${nameOf(error)})`);
    }
  }

  async open(sealed: string, context: SealContext): Promise<string> {
    if (sealed.startsWith('v1.')) {
      if (this.legacy) return this.legacy(sealed, context);
      // On AWS only reseal holds the old key (the monitors function does not read the credentials secret).
      throw new Error(
        `the sealed value of ${context.item} is sealed under the old item key (run: npm run admin -- reseal)`,
      );
    }
    if (!sealed.startsWith(VERSION)) throw new Error(`the sealed value of ${context.item} is malformed`);
    let opened: Awaited<ReturnType<typeof decrypt>>;
    try {
      opened = await decrypt(this.materials, Buffer.from(sealed.slice(VERSION.length), 'base64'), {
        maxBodySize: MAX_BODY_BYTES,
      });
    } catch (error) {
      throw new Error(`the sealed value of ${context.item} does not open (${nameOf(error)})`);
    }
    // The SDK authenticates the context the message carries; that it is this item's is ours to check.
    if (!sameContext(opened.messageHeader.encryptionContext, encryptionContextOf(context))) {
      throw new Error(`the sealed value of ${context.item} belongs to another item`);
    }
    return opened.plaintext.toString('utf8');
  }
}

/** An error's class name only: a KMS or SDK message may quote the value's context, never what it sealed. */
const nameOf = (error: unknown): string =>
  error instanceof Error && /^[A-Za-z]{1,64}$/.test(error.name) ? error.name : 'Error';
