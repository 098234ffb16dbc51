// Owns how a comparison reads to a person, one wording for the compare command's table, its HTML page and the docs
// (docs/statistics.md quotes these): the difference with its interval, the p-values, the test and the power line.
import type { ComparedRate, ComparisonTest, PlacementComparison } from '../../domain/placementComparison';

const signed = (share: number) => {
  const points = Math.round(share * 100);
  return `${points > 0 ? '+' : ''}${points}`;
};

/** "-20 points (-45 to +8)", or "-" where there is nothing to compare. */
export const differenceText = (compared: ComparedRate): string =>
  compared.difference === null
    ? '-'
    : `${signed(compared.difference)} points${compared.interval ? ` (${signed(compared.interval.low)} to ${signed(compared.interval.high)})` : ''}`;

export const pText = (p: number | null): string => (p === null ? '-' : p < 0.001 ? '<0.001' : p.toFixed(3));

const TEST_NAMES: Record<ComparisonTest, string> = {
  mcnemar_exact: 'exact McNemar test on the seeds that differ',
  exact_conditional_by_seed: 'exact conditional test, stratified by seed',
  fisher_exact: "Fisher's exact test",
  exact_conditional_by_provider: 'exact conditional test, stratified by provider',
};

/** How many checks of this size would show a 20-point change, in one sentence; undefined without a rate. */
export const powerText = (comparison: PlacementComparison): string | undefined => {
  const power = comparison.power;
  if (!power) return undefined;
  const change = `${Math.round(power.from * 100)}% -> ${Math.round(power.to * 100)}%`;
  if (power.seeds_needed === null)
    return `power: a change of ${change} needs more than ${power.max_seeds} seeds a side for 80% power`;
  const checks =
    power.checks_needed === null
      ? ''
      : `, i.e. ${power.checks_needed} check${power.checks_needed === 1 ? '' : 's'} of ${power.seeds_per_check} seeds`;
  return `power: to detect ${change} with 80% power takes ${power.seeds_needed} seeds a side${checks} (Fisher, two-sided 5%)`;
};

/** The notes printed under the table: what the columns mean and which base the rates use. */
export const comparisonNotes = (comparison: PlacementComparison): string[] => {
  const tests = [
    ...new Set(
      [
        comparison.overall.inbox,
        ...Object.values(comparison.by_provider).flatMap((r) => [r.inbox, r.spam]),
      ].flatMap((rate) => (rate.test ? [TEST_NAMES[rate.test]] : [])),
    ),
  ];
  return [
    `design: ${comparison.design === 'paired' ? 'paired (the same seeds on both sides, each compared with itself)' : 'independent (the seeds differ)'}`,
    `p: two-sided, ${tests.join('; ') || 'no test'}; per provider corrected for the number of providers (Holm)`,
    'b - a: the difference with its 95% interval (Newcombe hybrid score); "too few seeds to tell" where no result these seeds allow could reach p < 0.05',
    `base: ${comparison.base_note}`,
  ];
};
