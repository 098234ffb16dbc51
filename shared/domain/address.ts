// Owns test-account addresses and the tag that ties a delivered copy to a check: <local>+tc_<check_id>@<domain>.
import { CHECK_ID_LENGTH } from './checkId';
import { InvalidInputError } from './errors';

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
