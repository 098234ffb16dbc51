// Owns the client's view of two series of checks compared (GET /api/spam-check/compare, an addition to the spec): its
// type, from the service's domain, and checking a response body against it before anyone prints it.
export type { ComparedCheck, ComparedRate, PlacementComparison } from '../domain/placementComparison';
export type { RateInterval } from '../domain/placementReport';

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

/** Why `body` is not a comparison of two series of checks, or undefined when it is one. */
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
