// Owns the format of check ids: 100 random bits as 20 lower-case base32 characters.
import { randomBytes } from 'node:crypto';

// RFC 4648 base32 in lower case: only [a-z2-7], so it survives providers that lower-case the local part,
// and 32 symbols map to exactly 5 bits each, so there is no modulo bias.
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
export const CHECK_ID_LENGTH = 20;
export const CHECK_ID_BITS = CHECK_ID_LENGTH * 5;
const CHECK_ID_PATTERN = /^[a-z2-7]{20}$/;

export const newCheckId = (random: (size: number) => Uint8Array = randomBytes): string => {
  const bytes = random(CHECK_ID_LENGTH);
  let id = '';
  for (const byte of bytes) id += ALPHABET[byte & 31];
  return id;
};

/** Anything else cannot be a check of ours, so it is answered without touching the store. */
export const isCheckId = (value: string): boolean => CHECK_ID_PATTERN.test(value);
