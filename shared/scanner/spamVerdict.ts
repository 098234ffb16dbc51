// Owns reading the receiving spam filter's own verdict from a copy's header block: SpamAssassin's X-Spam-Status,
// Microsoft's X-Forefront-Antispam-Report (SCL, SFV, CAT) and X-Microsoft-Antispam (BCL). Only the filters the
// account's provider (or the account) names as its own are read, and only where the receiver demonstrably wrote
// them (receiverMarks.ts): a copy the filter skipped shows no verdict, never the one the sender wrote.

import type { SpamVerdict } from '../domain/placementReport';
import type { SpamFilter } from '../domain/receivingTrust';
import { MS_DELIVERY_HEADER } from './headers';
import { aboveTopReceived, belowMicrosoftMark } from './receiverMarks';

export type { SpamFilter } from '../domain/receivingTrust';

const SPAMASSASSIN_HEADER = 'x-spam-status';
const FOREFRONT_HEADER = 'x-forefront-antispam-report';
const MS_ANTISPAM_HEADER = 'x-microsoft-antispam';
export const SPAM_HEADERS = [SPAMASSASSIN_HEADER, FOREFRONT_HEADER, MS_ANTISPAM_HEADER] as const;

/** Rules kept per verdict, and characters per rule name: the item the result is stored in stays small. */
export const MAX_RULES = 20;
export const MAX_RULE_LENGTH = 48;
/** Characters of a header value read. */
const MAX_VALUE = 4096;
const RULE = /^[A-Za-z0-9_.:-]+$/;
const NUMBER = /^-?\d{1,6}(?:\.\d{1,4})?$/;

const numberOf = (text: string | undefined): number | null =>
  text !== undefined && NUMBER.test(text) ? Number(text) : null;

const rulesOf = (names: readonly string[]): string[] =>
  names
    .filter((name) => name.length > 0 && name.length <= MAX_RULE_LENGTH && RULE.test(name))
    .slice(0, MAX_RULES);

/** `Yes, score=1000.0 required=5.0 tests=GTUBE,NO_RECEIVED autolearn=no version=3.4.6` (folded lines unfolded). */
const spamAssassinVerdict = (value: string): SpamVerdict | null => {
  const text = value.slice(0, MAX_VALUE);
  const answer = /^\s*(yes|no)\b/i.exec(text)?.[1]?.toLowerCase();
  if (!answer) return null;
  const field = (name: string) => new RegExp(`(?:^|[\\s,])${name}=(\\S*)`, 'i').exec(text)?.[1];
  // The test list may be folded after any comma; it runs up to the next `name=` or the end.
  const tests = /(?:^|\s)tests=([\s\S]*?)(?=\s[a-z_]+=|$)/i.exec(text)?.[1] ?? '';
  return {
    filter: 'spamassassin',
    score: numberOf(field('score')),
    threshold: numberOf(field('required')),
    verdict: answer === 'yes' ? 'spam' : 'ham',
    rules: rulesOf(tests.split(/[\s,]+/).filter((name) => name !== 'none')),
  };
};

/** `name:value;` pairs, names upper-cased; the first of each name. */
const pairsOf = (value: string): Map<string, string> => {
  const pairs = new Map<string, string>();
  for (const part of value.slice(0, MAX_VALUE).split(';')) {
    const colon = part.indexOf(':');
    if (colon <= 0) continue;
    const name = part.slice(0, colon).trim().toUpperCase();
    if (!pairs.has(name)) pairs.set(name, part.slice(colon + 1).trim());
  }
  return pairs;
};

/**
 * Microsoft's anti-spam headers as its "Anti-spam message headers" page documents them: SCL -1 to 9 (5 and 6 spam,
 * 9 high confidence spam: the threshold is 5), SFV:SPM spam, SFV:SKS marked spam before filtering (a mail flow rule),
 * SFV:NSPM not spam (other SFV values say filtering was skipped for a list or a rule: no verdict), CAT the protection
 * policy applied, BCL the bulk complaint level.
 */
const microsoftVerdict = (
  forefront: string | undefined,
  antispam: string | undefined,
): SpamVerdict | null => {
  if (forefront === undefined) return null;
  const report = pairsOf(forefront);
  const scl = numberOf(report.get('SCL'));
  const sfv = report.get('SFV')?.toUpperCase();
  const bcl = antispam === undefined ? undefined : pairsOf(antispam).get('BCL');
  const rules = [
    ...(sfv ? [`SFV:${sfv}`] : []),
    ...(report.get('CAT') ? [`CAT:${report.get('CAT')}`] : []),
    ...(bcl !== undefined && numberOf(bcl) !== null ? [`BCL:${bcl}`] : []),
  ];
  return {
    filter: 'microsoft',
    score: scl !== null && scl >= -1 && scl <= 9 ? scl : null,
    threshold: 5,
    verdict: sfv === 'SPM' || sfv === 'SKS' ? 'spam' : sfv === 'NSPM' ? 'ham' : null,
    rules: rulesOf(rules),
  };
};

/**
 * The verdict of the first of `filters` whose own header the copy carries, or null. SpamAssassin writes X-Spam-Status
 * above every Received (removing incoming X-Spam-*): one below the topmost Received is the sender's, as on a message
 * spamc skipped for its size. Exchange appends its headers below its organization mark: any above it is the sender's.
 */
export const spamVerdictOf = (
  block: string,
  filters: readonly SpamFilter[] | undefined,
): SpamVerdict | null => {
  for (const filter of filters ?? []) {
    const verdict =
      filter === 'spamassassin'
        ? spamAssassinVerdict(aboveTopReceived(block, SPAMASSASSIN_HEADER, MAX_VALUE) ?? '')
        : microsoftVerdict(
            belowMicrosoftMark(block, FOREFRONT_HEADER, MAX_VALUE),
            belowMicrosoftMark(block, MS_ANTISPAM_HEADER, MAX_VALUE),
          );
    if (verdict) return verdict;
  }
  return null;
};

/** Exchange's delivery stamp (`dest:`), only where the account trusts Microsoft's filter, and below Exchange's mark. */
export const microsoftDeliveryStamp = (
  block: string,
  filters: readonly SpamFilter[] | undefined,
): string | undefined =>
  filters?.includes('microsoft') ? belowMicrosoftMark(block, MS_DELIVERY_HEADER, MAX_VALUE) : undefined;
