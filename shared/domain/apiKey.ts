// Owns API keys: their format, how they are hashed for storage, and when a stored key may be used.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidApiKeyError, InvalidInputError } from './errors';

export interface ApiKey {
  /** A short public handle (the first 12 hex digits of the hash) for listing and revoking. */
  keyId: string;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  keyHash: string;
  scope: string;
  label: string;
  createdAt: number;
  expiresAt?: number;
  revoked: boolean;
}

export interface Principal {
  keyId: string;
  scope: string;
}

// RFC 6750's b64token; a comma is excluded on purpose because proxies join repeated headers with one.
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/;
const MAX_KEY_LENGTH = 512;
const SCOPE = /^[a-z0-9][a-z0-9_-]{0,62}$/;

// Keys issued now are the prefix, 32 random bytes and a checksum of them, all base64url: a key made up or mistyped in
// that shape is refused before any lookup. Keys issued before (the prefix and the bytes alone) or chosen in a local
// config have another length, carry no checksum and are looked up as ever.
const PREFIX = 'ipk_';
const RANDOM_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const CHECKSUMMED_LENGTH = PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const checksumOf = (issued: string): string =>
  createHash('sha256').update(issued, 'utf8').digest('base64url').slice(0, CHECKSUM_LENGTH);

/** False only for a key in the checksummed shape whose checksum is wrong: no key issued or storable is one. */
export const checksumHolds = (key: string): boolean => {
  if (key.length !== CHECKSUMMED_LENGTH || !key.startsWith(PREFIX) || !BASE64URL.test(key)) return true;
  const issued = key.slice(0, -CHECKSUM_LENGTH);
  return checksumOf(issued) === key.slice(-CHECKSUM_LENGTH);
};

/** The key in an `Authorization` header, or InvalidApiKeyError for any other form or a failed checksum. */
export const bearerKeyOf = (header: string | undefined): string => {
  if (header === undefined || header.length > MAX_KEY_LENGTH + 7) throw new InvalidApiKeyError();
  const key = BEARER.exec(header)?.[1];
  if (!key || !checksumHolds(key)) throw new InvalidApiKeyError();
  return key;
};

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Whether `key` is the key a stored hash was made from, compared in constant time over two 32-byte digests, so
 * the time taken says nothing about how much of the hash matched. A malformed stored hash never matches.
 */
export const keyMatchesHash = (key: string, keyHash: string): boolean => {
  if (!SHA256_HEX.test(keyHash)) return false;
  const presented = createHash('sha256').update(key, 'utf8').digest();
  return timingSafeEqual(presented, Buffer.from(keyHash, 'hex'));
};

export const keyIdOf = (keyHash: string): string => keyHash.slice(0, 12);

export const generateApiKey = (): string => {
  const issued = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  return `${issued}${checksumOf(issued)}`;
};

export const validateScope = (scope: string): string => {
  if (!SCOPE.test(scope)) {
    throw new InvalidInputError(
      `invalid scope "${scope}": use 1-63 of [a-z0-9_-], starting with a letter or digit`,
    );
  }
  return scope;
};

const validateApiKey = (key: string): string => {
  if (key.length < 16 || key.length > MAX_KEY_LENGTH || !BEARER.test(`Bearer ${key}`)) {
    throw new InvalidInputError(
      'an API key must be 16-512 characters of [A-Za-z0-9-._~+/] (optionally ending in =)',
    );
  }
  if (!checksumHolds(key)) {
    throw new InvalidInputError(
      `an API key of ${CHECKSUMMED_LENGTH} base64url characters starting ${PREFIX} is the issued shape and must carry its checksum: choose another key, or let one be issued`,
    );
  }
  return key;
};

export const newApiKeyRecord = (
  key: string,
  fields: { scope: string; label: string; expiresAt?: number | undefined },
  now: number,
): ApiKey => {
  const keyHash = hashApiKey(validateApiKey(key));
  return {
    keyId: keyIdOf(keyHash),
    keyHash,
    scope: validateScope(fields.scope),
    label: fields.label,
    createdAt: now,
    ...(fields.expiresAt === undefined ? {} : { expiresAt: fields.expiresAt }),
    revoked: false,
  };
};

export const isUsable = (key: ApiKey, now: number): boolean =>
  !key.revoked && (key.expiresAt === undefined || now < key.expiresAt);
