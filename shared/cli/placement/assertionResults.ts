// Owns judging `--assert` expressions against a settled check and its placement report: the measured value of each,
// and whether it held. A value that could not be measured never holds.
import type { CheckView, PlacementReport, ReportAccount } from '../../client';
import { isInbox } from '../../domain/categories';
import type { Assertion, AuthMethod, Comparison, Placement } from './assertions';

export interface AssertionResult {
  expression: string;
  held: boolean;
  /** The measured value: a rate, seconds, a result word (or a tally of them); null where nothing was measured. */
  value: number | string | null;
  /** What the value was measured over, in words. */
  detail: string;
}

/** Rates are ratios of small counts: 4/5 must equal 0.8 as written. */
const EPSILON = 1e-9;

export const compare = (measured: number, op: Comparison, expected: number): boolean => {
  const difference = measured - expected;
  if (op === '==') return Math.abs(difference) <= EPSILON;
  if (op === '!=') return Math.abs(difference) > EPSILON;
  if (op === '>=') return difference >= -EPSILON;
  if (op === '<=') return difference <= EPSILON;
  if (op === '>') return difference > EPSILON;
  return difference < -EPSILON;
};

const inPlacement = (category: CheckView['results'][number]['category'], placement: Placement) =>
  placement === 'inbox' ? isInbox(category) : category === placement;

const placementWords = (placement: Placement) => (placement === 'inbox' ? 'primary or updates' : placement);

const rounded = (value: number) => Math.round(value * 10_000) / 10_000;

/** A share of accounts over every account asked (a copy that never arrived counts against the inbox). */
const share = (
  assertion: Extract<Assertion, { kind: 'share' }>,
  check: CheckView,
  report: PlacementReport | null,
): AssertionResult => {
  const { provider, placement } = assertion;
  const unmeasured = (detail: string) => ({ expression: assertion.text, held: false, value: null, detail });
  let total: number;
  let matching: number;
  if (provider === undefined) {
    total = check.total;
    matching = check.results.filter((result) => inPlacement(result.category, placement)).length;
  } else {
    if (!report) return unmeasured('no placement report: the service gave none, so providers are unknown');
    const accounts = report.accounts.filter((account) => account.provider === provider);
    total = accounts.length;
    matching = accounts.filter((account) => inPlacement(account.category, placement)).length;
  }
  const over = provider === undefined ? 'accounts' : `${provider} accounts`;
  if (total === 0) return unmeasured(`no ${over} in this check`);
  const value = rounded(matching / total);
  return {
    expression: assertion.text,
    held: compare(matching / total, assertion.op, assertion.rate),
    value,
    detail: `${matching} of ${total} ${over} in ${placementWords(placement)}`,
  };
};

const verdictOf = (account: ReportAccount, method: AuthMethod): string => account.auth?.[method] ?? 'unknown';

/**
 * Every received copy's own receiving side must say so. A copy whose receiver wrote no verdict is `unknown`, which is
 * never a pass and never "not a fail" either: `auth.dkim != fail` does not hold over a copy nobody judged.
 */
const authentication = (
  assertion: Extract<Assertion, { kind: 'auth' }>,
  report: PlacementReport | null,
): AssertionResult => {
  const unmeasured = (detail: string) => ({ expression: assertion.text, held: false, value: null, detail });
  if (!report) return unmeasured('no placement report: the service gave none, so no verdict is known');
  const received = report.accounts.filter((account) => account.category !== 'pending');
  if (received.length === 0) return unmeasured('no copy was received, so no receiver gave a verdict');
  const tally = new Map<string, number>();
  for (const account of received) {
    const verdict = verdictOf(account, assertion.method);
    tally.set(verdict, (tally.get(verdict) ?? 0) + 1);
  }
  const wrong = received.filter((account) => {
    const verdict = verdictOf(account, assertion.method);
    return verdict === 'unknown' || (assertion.op === '==') !== (verdict === assertion.result);
  });
  const value =
    tally.size === 1
      ? ([...tally.keys()][0] ?? null)
      : [...tally].map(([verdict, count]) => `${verdict} ${count}`).join(', ');
  const named = wrong
    .slice(0, 3)
    .map((account) => `${account.email} ${verdictOf(account, assertion.method)}`);
  return {
    expression: assertion.text,
    held: wrong.length === 0,
    value,
    detail:
      wrong.length === 0
        ? `all ${received.length} received copies`
        : `${wrong.length} of ${received.length} received copies do not hold: ${named.join(', ')}${wrong.length > 3 ? ', …' : ''}`,
  };
};

/**
 * Nearest-rank percentile over every account asked: a copy that never arrived took forever, so a p95 over a check
 * where more than 5% never arrived is not measured and does not hold. Copies without a delivery time (no Date
 * header) are left out, and said so.
 */
const delivery = (
  assertion: Extract<Assertion, { kind: 'delivery' }>,
  report: PlacementReport | null,
): AssertionResult => {
  const unmeasured = (detail: string) => ({ expression: assertion.text, held: false, value: null, detail });
  if (!report) return unmeasured('no placement report: the service gave none, so no delivery time is known');
  const missing = report.accounts.filter((account) => account.category === 'pending').length;
  const times = report.accounts
    .filter((account) => account.category !== 'pending' && account.seconds_to_deliver !== null)
    .map((account) => account.seconds_to_deliver as number)
    .sort((a, b) => a - b);
  const untimed = report.accounts.length - missing - times.length;
  const counted = times.length + missing;
  const notes = [
    ...(missing > 0 ? [`${missing} never arrived`] : []),
    ...(untimed > 0 ? [`${untimed} received without a delivery time, left out`] : []),
  ];
  const over = `${counted} copies${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
  if (counted === 0) return unmeasured(`no copy with a delivery time: ${over}`);
  const rank = Math.max(1, Math.ceil(assertion.quantile * counted));
  const value = times[rank - 1];
  if (value === undefined)
    return unmeasured(`${assertion.statistic} falls on a copy that never arrived: ${over}`);
  return {
    expression: assertion.text,
    held: compare(value, assertion.op, assertion.seconds),
    value,
    detail: `${assertion.statistic} over ${over}`,
  };
};

/** Judges every assertion but no_regression, which the baseline comparison judges. */
export const judgeAssertion = (
  assertion: Exclude<Assertion, { kind: 'noRegression' }>,
  check: CheckView,
  report: PlacementReport | null,
): AssertionResult => {
  if (assertion.kind === 'share') return share(assertion, check, report);
  if (assertion.kind === 'auth') return authentication(assertion, report);
  return delivery(assertion, report);
};

/** Whether a result could not be judged because the service gave no placement report (a service error, not a fail). */
export const needsReport = (assertion: Assertion): boolean =>
  assertion.kind === 'auth' ||
  assertion.kind === 'delivery' ||
  (assertion.kind === 'share' && assertion.provider !== undefined);
