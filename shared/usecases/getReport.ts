// Owns the placement report (GET /api/spam-check/{check_id}/report, an addition): the check as get reads it, with
// why each copy landed where it did, from what the scanner kept with each result. Same 404s as get.

import { type AuditStore, reportAuditOf } from '../audit';
import { type SeedContext, seedContextOf } from '../calibration';
import type { Principal } from '../domain/apiKey';
import type { ReportAudit } from '../domain/auditReport';
import {
  CATEGORIES,
  type Category,
  isInbox,
  type PlacementClass,
  placementClassOf,
} from '../domain/categories';
import { type Check, statusOf } from '../domain/check';
import { ACTIVE_MS } from '../domain/limits';
import type {
  AuthReasons,
  AuthVerdict,
  PlacementReport,
  ProviderSummary,
  RateInterval,
  ReportAccount,
} from '../domain/placementReport';
import type { RecordedDetails, SeedHistoryStore } from '../domain/ports';
import { rateOf } from '../domain/statistics';
import { withSnakeKeys } from '../domain/wireKeys';
import { showingCheck } from './getCheck';

/** A check started before providers were kept with it names none. */
const UNKNOWN_PROVIDER = 'unknown';

/** A result recorded before reasons were kept carries none: null, never guessed. */
const NO_REASONS: AuthReasons = { spf: null, dkim: null, dmarc: null, arc: null };
const authOf = (auth: AuthVerdict | null | undefined): AuthVerdict | null =>
  auth ? { ...auth, reasons: auth.reasons ?? NO_REASONS } : null;

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

const accountOf = (check: Check, email: string, category: Category): ReportAccount => {
  const details: RecordedDetails = check.details?.[email] ?? {};
  const { deliveredAt, sentAt } = details;
  return {
    email,
    provider: check.providers?.[email] ?? UNKNOWN_PROVIDER,
    category,
    folder: details.folder ?? null,
    delivered_at: iso(deliveredAt),
    detected_at: iso(details.recordedAt),
    seconds_to_deliver:
      deliveredAt !== undefined && sentAt !== undefined ? Math.round((deliveredAt - sentAt) / 1000) : null,
    auth: authOf(details.auth),
    spam: details.spam ?? null,
    provider_verdict: details.providerVerdict ?? null,
  };
};

const placementOf = (category: Category): PlacementClass | undefined =>
  category === 'pending' ? undefined : placementClassOf(category);

export { rateOf };

/** The copies a rate counts: received, and from a seed whose own controls have not gone astray lately. */
const countable = (accounts: readonly ReportAccount[]) =>
  accounts.filter((account) => account.category !== 'pending' && account.suspect !== true);

const rateIn = (accounts: readonly ReportAccount[], placement: PlacementClass): RateInterval => {
  const placed = countable(accounts);
  return rateOf(
    placed.filter((account) => placementOf(account.category) === placement).length,
    placed.length,
  );
};

export const reportOf = (check: Check, now: number, seeds: SeedContext = {}): PlacementReport => {
  const status = statusOf(check, now);
  const accounts = check.results.map(({ email, category }) => {
    const account = accountOf(check, email, category);
    if (seeds.suspect) {
      account.suspect = seeds.suspect.has(email);
      account.seed_health = account.suspect ? 'suspect' : seeds.unknown?.has(email) ? 'unknown' : 'ok';
    }
    return account;
  });
  const byCategory = Object.fromEntries(CATEGORIES.map((category) => [category, 0])) as Record<
    Category,
    number
  >;
  const byProvider: Record<string, ProviderSummary> = {};
  for (const account of accounts) {
    byCategory[account.category]++;
    byProvider[account.provider] ??= {
      total: 0,
      received: 0,
      inbox: 0,
      spam: 0,
      other: 0,
      rates: { inbox: rateOf(0, 0), spam: rateOf(0, 0) },
    };
    const summary = byProvider[account.provider] as ProviderSummary;
    summary.total++;
    const placement = placementOf(account.category);
    if (placement) {
      summary.received++;
      summary[placement]++;
    }
  }
  for (const [provider, summary] of Object.entries(byProvider)) {
    const ofProvider = accounts.filter((account) => account.provider === provider);
    summary.rates = { inbox: rateIn(ofProvider, 'inbox'), spam: rateIn(ofProvider, 'spam') };
    if (seeds.controls) summary.control = seeds.controls[provider] ?? null;
  }
  const inbox = accounts.filter((account) => isInbox(account.category)).length;
  const recordedAt = Object.values(check.details ?? {}).flatMap(({ recordedAt: at }) =>
    at === undefined ? [] : [at],
  );
  const completedAt =
    status === 'complete'
      ? iso(recordedAt.length > 0 ? Math.max(...recordedAt) : undefined)
      : status === 'timeout'
        ? iso(check.createdAt + ACTIVE_MS)
        : null;
  return {
    check_id: check.checkId,
    status,
    started_at: new Date(check.createdAt).toISOString(),
    completed_at: completedAt,
    summary: {
      total: accounts.length,
      received: check.received,
      inbox_rate: {
        of_received: check.received > 0 ? inbox / check.received : null,
        of_total: accounts.length > 0 ? inbox / accounts.length : 0,
      },
      rates: { inbox: rateIn(accounts, 'inbox') },
      by_category: byCategory,
      by_provider: byProvider,
    },
    accounts,
    ...(seeds.marks ? { seed_marks: seeds.marks } : {}),
  };
};

const showingReport = showingCheck((check, now) => ({ check, now }));

const AUDIT_OFF: ReportAudit = { state: 'unavailable', why: 'the sender audit is off on this deployment' };

/**
 * The report, with the seed marks kept with the check beside it where the seeds' history is kept, and the sender
 * audit judged now against where the copies went (absent store: the audit is off).
 */
export const getReport = async (
  deps: Parameters<typeof showingReport>[0] & {
    seeds?: SeedHistoryStore | undefined;
    audits?: Pick<AuditStore, 'get'> | undefined;
  },
  principal: Principal,
  checkId: string,
): Promise<PlacementReport> => {
  const { check, now } = await showingReport(deps, principal, checkId);
  const stored = await deps.audits?.get(check.checkId);
  // The marks kept with the check, whatever the calibrations since: reading the report again never changes it.
  return {
    ...reportOf(check, now, deps.seeds || check.seedMarks ? seedContextOf(check.seedMarks) : {}),
    // The one place the audit meets the wire: its internal camelCase becomes snake_case here, whatever it holds.
    audit: withSnakeKeys(deps.audits ? reportAuditOf(check, now, stored) : AUDIT_OFF),
  };
};
