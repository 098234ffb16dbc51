// Owns test-account addresses and the tag that ties a delivered copy to a check: <local>+tc_<check_id>@<domain>.
import { CHECK_ID_LENGTH } from './checkId';
import { InvalidInputError } from './errors';

/** The tag's one spelling: the scanner finds and reads tags through the functions below, never a copy of it. */
const TAG_PREFIX = '+tc_';
const MAX_LOCAL_PART = 64;
/** The longest local part a test account may have so that its tagged form still fits in 64 characters. */
export const MAX_ACCOUNT_LOCAL_PART = MAX_LOCAL_PART - TAG_PREFIX.length - CHECK_ID_LENGTH;

// Deliberately narrower than RFC 5322: test mailboxes are ours to choose, and a plain dot-atom
// keeps tagging and matching unambiguous.
const ACCOUNT_ADDRESS =
  /^([a-z0-9](?:[a-z0-9._-]*[a-z0-9])?)@([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+)$/;

export interface AccountAddress {
  local: string;
  domain: string;
}

/** Validates and normalises (lower-cases) a test account's untagged address. */
export const parseAccountAddress = (email: string): AccountAddress => {
  const normalised = email.trim().toLowerCase();
  const match = ACCOUNT_ADDRESS.exec(normalised);
  if (!match?.[1] || !match[2]) throw new InvalidInputError(`not a usable test account address: ${email}`);
  if (match[1].includes('+'))
    throw new InvalidInputError(`a test account address must not carry a tag: ${email}`);
  if (match[1].length > MAX_ACCOUNT_LOCAL_PART) {
    throw new InvalidInputError(
      `local part of ${email} is longer than ${MAX_ACCOUNT_LOCAL_PART} characters, so its tagged form would exceed 64`,
    );
  }
  return { local: match[1], domain: match[2] };
};

export const normaliseAccountEmail = (email: string): string => {
  const { local, domain } = parseAccountAddress(email);
  return `${local}@${domain}`;
};

export const tagAddress = (email: string, checkId: string): string => {
  const { local, domain } = parseAccountAddress(email);
  return `${local}${TAG_PREFIX}${checkId}@${domain}`;
};

const isAlnum = (code: number): boolean =>
  (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);

/** Whether `text` holds the tag at `at`, in any case (`+TC_` too: case is the sender's, not ours). */
const isTagAt = (text: string, at: number): boolean =>
  text.charCodeAt(at) === 0x2b &&
  text.slice(at + 1, at + TAG_PREFIX.length).toLowerCase() === TAG_PREFIX.slice(1);

/**
 * Where the next tag starts in `text` at or after `from`, in any case, or -1. Linear: one indexOf per `+`, no regex,
 * so sender text cannot make it backtrack.
 */
export const nextTagAt = (text: string, from = 0): number => {
  for (let at = text.indexOf('+', from); at !== -1; at = text.indexOf('+', at + 1))
    if (isTagAt(text, at)) return at;
  return -1;
};

/** The tag naming `checkId`, as it appears in a tagged address (lower case). */
export const tagOf = (checkId: string): string => `${TAG_PREFIX}${checkId}`;

/** The tag's length, for a reader stepping past one found by nextTagAt. */
export const TAG_LENGTH = TAG_PREFIX.length;

const isLocalChar = (code: number): boolean =>
  isAlnum(code) || code === 0x2e || code === 0x5f || code === 0x2d;

/** A domain of two or more labels, each letters, digits and inner hyphens. */
const isTaggedDomain = (domain: string): boolean => {
  const labels = domain.split('.');
  if (labels.length < 2) return false;
  return labels.every((label) => {
    if (label === '' || label.charCodeAt(0) === 0x2d || label.charCodeAt(label.length - 1) === 0x2d)
      return false;
    for (let index = 0; index < label.length; index++) {
      const code = label.charCodeAt(index);
      if (!isAlnum(code) && code !== 0x2d) return false;
    }
    return true;
  });
};

const every = (text: string, test: (code: number) => boolean): boolean => {
  for (let index = 0; index < text.length; index++) if (!test(text.charCodeAt(index))) return false;
  return true;
};

/**
 * A whole token read as a tagged address `<local>+tc_<id>@<domain>`, lower-cased, or undefined when it is not one:
 * a local part of letters, digits and `._-`, an id of letters and digits, a domain of two or more labels. Wider in
 * case than parseAccountAddress (a sender may write `Seed+TC_…`), linear, and never a regex over sender text.
 */
export const taggedAddressOf = (
  token: string,
): { local: string; checkId: string; domain: string } | undefined => {
  const tag = nextTagAt(token);
  const at = token.indexOf('@', tag + TAG_PREFIX.length);
  if (tag <= 0 || at === -1) return undefined;
  const local = token.slice(0, tag);
  const checkId = token.slice(tag + TAG_PREFIX.length, at);
  const domain = token.slice(at + 1);
  if (!every(local, isLocalChar) || checkId === '' || !every(checkId, isAlnum) || !isTaggedDomain(domain))
    return undefined;
  return { local: local.toLowerCase(), checkId: checkId.toLowerCase(), domain: domain.toLowerCase() };
};
