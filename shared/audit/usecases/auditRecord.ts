// Owns what is kept of a check's sender audit (what was found and not checked, never the ranking, and the facts it
// was found in) and the report's
// view of it: ranked and scored at read time against where the check's copies went by then, missing ones included.
// Only the verdict is imported here: the API's functions carry no message parser and no suffix list.

import type { AuditedCopy, ReportAudit } from '../../domain/auditReport';
import { placementClassOf } from '../../domain/categories';
import { type Check, statusOf } from '../../domain/check';
import type { JudgedCopy } from '../audit';
import type { CopyFacts, DnsResults, ProviderPlacement } from '../types';
import { verdictOf } from '../verdict';

/** A claim not completed within this long was cut (its loop ended, its process died): the report stops waiting. */
export const AUDIT_ABANDONED_MS = 60_000;

/** One check's audit as kept: claimed by the one loop that takes it, then taken (or found impossible to take). */
export type StoredAudit =
  | { state: 'claimed'; claimedAt: number }
  | ({
      state: 'ready';
      claimedAt: number;
      auditedAt: number;
      copy: AuditedCopy;
      /** What the findings were judged from (for the dashboard's metrics): the copy's facts and DNS results. */
      facts: CopyFacts;
      /** Undefined when DNS was not consulted. */
      dns: DnsResults | undefined;
    } & JudgedCopy)
  | { state: 'unavailable'; claimedAt: number; auditedAt: number; why: string };

export interface AuditStore {
  /** Claims the check's audit for one taker, once (a conditional write); false when someone already has. */
  claim(checkId: string, claimedAt: number, purgeAt: number): Promise<boolean>;
  /** Writes the finished audit over this taker's claim; false when the claim is gone (the check expired). */
  complete(checkId: string, audit: Exclude<StoredAudit, { state: 'claimed' }>): Promise<boolean>;
  get(checkId: string): Promise<StoredAudit | undefined>;
}

/** Where the check's copies went per provider: received ones by class, missing ones only once the check has ended. */
const placementsOf = (check: Check, now: number): Record<string, ProviderPlacement> => {
  const ended = statusOf(check, now) !== 'pending';
  const placements: Record<string, ProviderPlacement> = {};
  for (const { email, category } of check.results) {
    const provider = check.providers?.[email] ?? 'unknown';
    placements[provider] ??= { inbox: 0, spam: 0, missing: 0, other: 0 };
    const counts = placements[provider] as ProviderPlacement;
    if (category !== 'pending') counts[placementClassOf(category)]++;
    else if (ended) counts.missing++;
  }
  return placements;
};

/** The report's `audit` for a check at `now`, from what is stored of it (undefined: nothing yet). */
export const reportAuditOf = (check: Check, now: number, stored: StoredAudit | undefined): ReportAudit => {
  const ended = statusOf(check, now) !== 'pending';
  if (stored === undefined) {
    if (!ended) return { state: 'pending' };
    if (check.received === 0) return { state: 'unavailable', why: 'no copy arrived before the check ended' };
    // A check ends on its last copy, and the audit is claimed by a detached task moments after its first: waited for
    // as a claimed one is, from the first record, so a complete check is not told "not taken" in that gap.
    const recorded = Object.values(check.details ?? {}).flatMap(({ recordedAt }) => recordedAt ?? []);
    if (recorded.length > 0 && now - Math.min(...recorded) <= AUDIT_ABANDONED_MS) return { state: 'pending' };
    return {
      state: 'unavailable',
      why: 'the audit was not taken (it is off on this deployment, or no scanner took it)',
    };
  }
  if (stored.state === 'claimed')
    return now - stored.claimedAt > AUDIT_ABANDONED_MS
      ? { state: 'unavailable', why: 'the audit was started but did not finish' }
      : { state: 'pending' };
  if (stored.state === 'unavailable') return { state: 'unavailable', why: stored.why };
  return {
    state: 'ready',
    auditedAt: new Date(stored.auditedAt).toISOString(),
    copy: stored.copy,
    ...verdictOf(stored.findings, stored.notChecked, stored.checklists, placementsOf(check, now)),
  };
};
