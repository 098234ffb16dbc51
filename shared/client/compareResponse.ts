// Owns the client's view of two checks compared (GET /api/spam-check/compare, an addition to the spec): its type,
// from the service's domain, and checking a response body against it before anyone prints it.
import type * as comparison from '../domain/placementComparison';
import type * as report from '../domain/placementReport';

/**
 * Two checks compared: each side, overall and per provider, with the difference and its p-value.
 *
 * @example
 * ```ts
 * const diff: PlacementComparison = await client.compare(before, after);
 * console.log(diff.overall.inbox.reading);
 * ```
 */
export type PlacementComparison = comparison.PlacementComparison;
/**
 * One side of a comparison: the check's id and its counts.
 *
 * @example
 * ```ts
 * const side: ComparedCheck = diff.a;
 * console.log(side.check_id);
 * ```
 */
export type ComparedCheck = comparison.ComparedCheck;
/**
 * One rate of the two checks side by side: both rates, their difference, Fisher's exact p-value, a reading.
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
  if (!isShareOrNull(compared.difference)) return `${where}.difference is not a number or null`;
  if (!isShareOrNull(compared.p_value)) return `${where}.p_value is not a number or null`;
  if (typeof compared.reading !== 'string') return `${where}.reading is missing`;
  return rateProblem(compared.a, `${where}.a`) ?? rateProblem(compared.b, `${where}.b`);
};

/**
 * Why `body` is not a comparison of two checks, or undefined when it is one.
 *
 * @example
 * ```ts
 * const problem = comparisonProblem(JSON.parse(saved));
 * if (problem) throw new Error(`not a comparison: ${problem}`);
 * ```
 */
export const comparisonProblem = (body: unknown): string | undefined => {
  if (!isRecord(body)) return 'the body is not a JSON object';
  for (const side of ['a', 'b']) {
    const check = body[side];
    if (!isRecord(check) || typeof check.check_id !== 'string') return `${side}.check_id is missing`;
  }
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
