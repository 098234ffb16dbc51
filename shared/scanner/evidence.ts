// Owns what a delivered copy says about why it landed where it did, as kept with its result: when it was sent and
// delivered, and the receiving side's own authentication results and spam verdict (see authResults.ts and
// spamVerdict.ts for whose headers are believed).

import type { AuthVerdict, SpamVerdict } from '../domain/placementReport';
import type { ReceivingTrust } from '../domain/receivingTrust';
import { authVerdictOf } from './authResults';
import { valueInBlock } from './headers';
import { spamVerdictOf } from './spamVerdict';

export interface CopyEvidence {
  /** IMAP INTERNALDATE, ms since the epoch. */
  deliveredAt: number;
  /** The message's Date header, ms since the epoch, when it reads as a date. */
  sentAt?: number | undefined;
  auth: AuthVerdict | null;
  spam: SpamVerdict | null;
}

/** A Date header longer than this is no RFC 5322 date. */
const MAX_DATE_LENGTH = 80;

export const sentAtOf = (block: string): number | undefined => {
  const value = valueInBlock(block, 'date');
  if (value === undefined || value.length > MAX_DATE_LENGTH) return undefined;
  const parsed = Date.parse(value);
  return Number.isFinite(parsed) ? parsed : undefined;
};

export const evidenceOf = (
  block: string,
  internalDate: number,
  trust: ReceivingTrust | undefined,
): CopyEvidence => {
  const sentAt = sentAtOf(block);
  return {
    deliveredAt: internalDate,
    ...(sentAt === undefined ? {} : { sentAt }),
    auth: authVerdictOf(block, trust?.auth),
    spam: spamVerdictOf(block, trust?.spamFilters),
  };
};
