// Owns the client's view of two checks (or series) compared (GET /api/spam-check/compare, an addition to the spec): its type,
// from the service's domain, and checking a response body against it before anyone prints it.
import type * as comparison from '../domain/placementComparison';
import type * as report from '../domain/placementReport';

/**
 * Two checks, or two series of checks, compared: each side, overall and per provider, with the difference and its p-value.
 *
 * @example
 * ```ts
 * const diff: PlacementComparison = await client.compare(before, after);
 * console.log(diff.overall.inbox.reading);
 * ```
 */
export type PlacementComparison = comparison.PlacementComparison;
/**
 * One check of a side of a comparison: its id, status, seeds and its own inbox rate.
 *
 * @example
 * ```ts
 * const first: ComparedCheck | undefined = diff.a.checks[0];
 * console.log(first?.check_id);
 * ```
 */
export type ComparedCheck = comparison.ComparedCheck;
/**
 * One rate of the two sides: both rates, their difference with its interval, the exact test's p-value, a reading.
 *
 * @example
 * ```ts
 * const inbox: ComparedRate = diff.overall.inbox;
 * if (inbox.p_value !== null && inbox.p_value < 0.05) console.log(inbox.reading);
 * ```
 */
export type ComparedRate = comparison.ComparedRate;

/**
 * A count out of a base, its rate and 95 % Wilson interval (all null when the base is 0).
 *
 * @example
 * ```ts
 * const { rate, low, high, of }: RateInterval = report.summary.rates.inbox;
 * console.log(`${rate} (${low}–${high}) of ${of}`);
 * ```
 */
export type RateInterval = report.RateInterval;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;
const isShareOrNull = (value: unknown) =>
  value === null || (typeof value === 'number' && Number.isFinite(value) && value >= -1 && value <= 1);

const rateProblem = (rate: unknown, where: string): string | undefined => {
  if (!isRecord(rate)) return `${where} is not an object`;
  if (!isCount(rate.count) || !isCount(rate.of)) return `${where}.count or .of is not a count`;
  for (const field of ['rate', 'low', 'high'])
    if (!isShareOrNull(rate[field])) return `${where}.${field} is not a share or null`;
  return undefined;
};

const comparedProblem = (compared: unknown, where: string): string | undefined => {
  if (!isRecord(compared)) return `${where} is not an object`;
  for (const field of ['difference', 'p_value', 'p_adjusted', 'min_p'])
    if (!isShareOrNull(compared[field])) return `${where}.${field} is not a number or null`;
  const interval = compared.interval;
  if (
    interval !== null &&
    (!isRecord(interval) || !isShareOrNull(interval.low) || !isShareOrNull(interval.high))
  )
    return `${where}.interval is not an interval or null`;
  if (typeof compared.reading !== 'string') return `${where}.reading is missing`;
  return rateProblem(compared.a, `${where}.a`) ?? rateProblem(compared.b, `${where}.b`);
};

const sideProblem = (side: unknown, name: string): string | undefined => {
  if (!isRecord(side) || !Array.isArray(side.checks) || side.checks.length === 0)
    return `${name}.checks is missing`;
  for (const [index, check] of side.checks.entries()) {
    if (!isRecord(check) || typeof check.check_id !== 'string')
      return `${name}.checks[${index}].check_id is missing`;
    const problem = rateProblem(check.inbox, `${name}.checks[${index}].inbox`);
    if (problem) return problem;
  }
  return undefined;
};

/**
 * Why `body` is not a comparison of two series of checks, or undefined when it is one.
 *
 * @example
 * ```ts
 * const problem = comparisonProblem(JSON.parse(saved));
 * if (problem) throw new Error(`not a comparison: ${problem}`);
 * ```
 */
export const comparisonProblem = (body: unknown): string | undefined => {
  if (!isRecord(body)) return 'the body is not a JSON object';
  const sides = sideProblem(body.a, 'a') ?? sideProblem(body.b, 'b');
  if (sides) return sides;
  if (body.design !== 'paired' && body.design !== 'independent') return 'design is not paired or independent';
  if (!isRecord(body.overall)) return 'overall is not an object';
  const overall = comparedProblem(body.overall.inbox, 'overall.inbox');
  if (overall) return overall;
  if (!isRecord(body.by_provider)) return 'by_provider is not an object';
  for (const [provider, rates] of Object.entries(body.by_provider)) {
    if (!isRecord(rates)) return `by_provider.${provider} is not an object`;
    const problem =
      comparedProblem(rates.inbox, `by_provider.${provider}.inbox`) ??
      comparedProblem(rates.spam, `by_provider.${provider}.spam`);
    if (problem) return problem;
  }
  return undefined;
};
