// Placement reports of given seeds and categories, for the comparison's tests: only what a comparison reads (the
// check's id, status, start and each seed's provider and category) is meaningful; the summary is left empty.
import type { Category } from '../../shared/domain/categories';
import type { PlacementReport } from '../../shared/domain/placementReport';
import { rateOf } from '../../shared/domain/statistics';

/** `seeds`: [email, provider, category] of each copy; `suspect`: emails marked suspect in this report. */
export const reportOf = (
  checkId: string,
  seeds: readonly [string, string, Category][],
  startedAt = '2026-11-25T09:00:00.000Z',
  suspect: readonly string[] = [],
): PlacementReport => ({
  check_id: checkId,
  status: 'complete',
  started_at: startedAt,
  completed_at: startedAt,
  summary: {
    total: seeds.length,
    received: seeds.filter(([, , category]) => category !== 'pending').length,
    inbox_rate: { of_received: null, of_total: 0 },
    rates: { inbox: rateOf(0, 0) },
    by_category: {} as PlacementReport['summary']['by_category'],
    by_provider: {},
  },
  accounts: seeds.map(([email, provider, category]) => ({
    email,
    provider,
    category,
    folder: null,
    delivered_at: null,
    detected_at: null,
    seconds_to_deliver: null,
    auth: null,
    spam: null,
    provider_verdict: null,
    ...(suspect.includes(email) ? { suspect: true } : {}),
  })),
});

/** `n` seeds of a provider, the first `inbox` in the inbox, then `spam` in spam, the rest `rest`. */
export const seedsAt = (
  provider: string,
  n: number,
  inbox: number,
  spam = n - inbox,
  rest: Category = 'pending',
  prefix = provider,
): [string, string, Category][] =>
  Array.from({ length: n }, (_, index) => [
    `${prefix}${index}@${provider}.test`,
    provider,
    index < inbox ? 'primary' : index < inbox + spam ? 'spam' : rest,
  ]);
