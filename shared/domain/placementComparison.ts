// Owns comparing two series of placement reports (GET /api/spam-check/compare, an addition): per provider and
// overall, both sides' rates over every seed with their intervals, the difference with Newcombe's interval, the exact
// test the design calls for, the smallest p it could give, Holm's correction across providers, and one reading.
import type { CheckStatus } from './check';
import { type PowerLine, powerLineOf } from './comparisonPower';
import type { PlacementReport, RateInterval } from './placementReport';
import {
  inboxOfTotal,
  isPaired,
  type PooledSeed,
  pooledSeeds,
  providerStrata,
  type RateKind,
  seedStratum,
} from './seedSeries';
import { holmAdjust, type Interval, newcombeInterval, rateOf } from './statistics';
import { exactConditionalTest, type Stratum, smallestPossibleP } from './stratifiedTest';

/** Below this p-value a difference is called larger than chance gives; the conventional two-sided 5 %. */
const SIGNIFICANCE_LEVEL = 0.05;

export const READINGS = {
  nothing: 'nothing to compare: one side has no seed counted here',
  tooFew: 'too few seeds to tell',
  chance: 'the difference is within what chance gives with these seeds',
  real: 'the difference is larger than chance alone gives with these seeds',
} as const;

/** Which exact test gave the p-value (docs/statistics.md says why each). */
export type ComparisonTest =
  | 'mcnemar_exact'
  | 'exact_conditional_by_seed'
  | 'fisher_exact'
  | 'exact_conditional_by_provider';

export interface ComparedRate {
  a: RateInterval;
  b: RateInterval;
  /** b's rate minus a's; null when either has nothing counted. */
  difference: number | null;
  /** The difference's 95 % interval (Newcombe's hybrid score); null as difference is. */
  interval: Interval | null;
  /** Two-sided p-value of `test`; null as difference is. */
  p_value: number | null;
  /** p_value after Holm's correction across the providers (overall: the same as p_value). */
  p_adjusted: number | null;
  /** The smallest p-value `test` could give with these seeds, whatever their copies did. */
  min_p: number | null;
  test: ComparisonTest | null;
  reading: string;
}

export interface ComparedCheck {
  check_id: string;
  status: CheckStatus;
  started_at: string;
  /** Seeds counted (not suspect), every one whether its copy arrived or not. */
  seeds: number;
  /** Inbox copies over those seeds, with its Wilson interval. */
  inbox: RateInterval;
}

const BASE_NOTE =
  'rates are over every seed of each check (of_total): a copy that never arrived counts as not in the inbox and not in spam; seeds marked suspect are left out';

export interface PlacementComparison {
  /** The checks of each side, oldest first. */
  a: { checks: ComparedCheck[] };
  b: { checks: ComparedCheck[] };
  /** paired: every seed was a seed of both sides, and is compared with itself; independent: the seeds differ. */
  design: 'paired' | 'independent';
  base: 'of_total';
  base_note: string;
  overall: { inbox: ComparedRate };
  /** Every provider either side has seeds at. */
  by_provider: Record<string, { inbox: ComparedRate; spam: ComparedRate }>;
  /** How many checks like these would detect a 20-point change in the overall inbox rate; null without a rate. */
  power: PowerLine | null;
}

const pooledRate = (seeds: readonly PooledSeed[], side: 'a' | 'b', kind: RateKind): RateInterval =>
  rateOf(
    seeds.reduce((sum, seed) => sum + seed[side][kind], 0),
    seeds.reduce((sum, seed) => sum + seed[side].of, 0),
  );

/** The reading of a tested difference: never "within chance" where no outcome of these seeds could be otherwise. */
const readingOf = (p: number | null, minP: number | null): string => {
  if (p === null || minP === null) return READINGS.nothing;
  if (minP > SIGNIFICANCE_LEVEL) return READINGS.tooFew;
  return p < SIGNIFICANCE_LEVEL ? READINGS.real : READINGS.chance;
};

const compareRate = (
  seeds: readonly PooledSeed[],
  kind: RateKind,
  paired: boolean,
  stratifyByProvider: boolean,
): ComparedRate => {
  const [a, b] = [pooledRate(seeds, 'a', kind), pooledRate(seeds, 'b', kind)];
  if (a.rate === null || b.rate === null) {
    const empty = { difference: null, interval: null, p_value: null, p_adjusted: null, min_p: null };
    return { a, b, ...empty, test: null, reading: READINGS.nothing };
  }
  let strata: Stratum[];
  let test: ComparisonTest;
  if (paired) {
    strata = seeds.map((seed) => seedStratum(seed, kind));
    const once = seeds.every((seed) => seed.a.of === 1 && seed.b.of === 1);
    test = once ? 'mcnemar_exact' : 'exact_conditional_by_seed';
  } else {
    strata = stratifyByProvider
      ? providerStrata(seeds, kind)
      : [{ countA: a.count, ofA: a.of, countB: b.count, ofB: b.of }];
    test = stratifyByProvider ? 'exact_conditional_by_provider' : 'fisher_exact';
  }
  const p = exactConditionalTest(strata);
  const minP = smallestPossibleP(strata);
  return {
    a,
    b,
    difference: b.rate - a.rate,
    interval: newcombeInterval(a, b),
    p_value: p,
    p_adjusted: p,
    min_p: minP,
    test,
    reading: readingOf(p, minP),
  };
};

/** Holm's correction across the providers' tests of one rate, and each reading from the corrected p. */
const withHolm = (rates: ComparedRate[]): void => {
  const adjusted = holmAdjust(rates.map((rate) => rate.p_value));
  for (const [index, rate] of rates.entries()) {
    rate.p_adjusted = adjusted[index] ?? null;
    rate.reading = readingOf(rate.p_adjusted, rate.min_p);
  }
};

const checkOf = (report: PlacementReport): ComparedCheck => {
  const inbox = inboxOfTotal(report);
  return {
    check_id: report.check_id,
    status: report.status,
    started_at: report.started_at,
    seeds: inbox.of,
    inbox,
  };
};

const oldestFirst = (reports: readonly PlacementReport[]) =>
  [...reports].sort((x, y) => (x.started_at < y.started_at ? -1 : x.started_at > y.started_at ? 1 : 0));

/** Two series compared, each pooled per seed (a series of one check is that check). */
export const compareSeries = (
  a: readonly PlacementReport[],
  b: readonly PlacementReport[],
): PlacementComparison => {
  const seeds = pooledSeeds(a, b);
  const paired = isPaired(seeds);
  const providers = [...new Set(seeds.map((seed) => seed.provider))].sort();
  const byProvider: PlacementComparison['by_provider'] = {};
  for (const provider of providers) {
    const own = seeds.filter((seed) => seed.provider === provider);
    byProvider[provider] = {
      inbox: compareRate(own, 'inbox', paired, false),
      spam: compareRate(own, 'spam', paired, false),
    };
  }
  withHolm(Object.values(byProvider).map((rates) => rates.inbox));
  withHolm(Object.values(byProvider).map((rates) => rates.spam));
  const [checksA, checksB] = [oldestFirst(a).map(checkOf), oldestFirst(b).map(checkOf)];
  const overall = compareRate(seeds, 'inbox', paired, true);
  return {
    a: { checks: checksA },
    b: { checks: checksB },
    design: paired ? 'paired' : 'independent',
    base: 'of_total',
    base_note: BASE_NOTE,
    overall: { inbox: overall },
    by_provider: byProvider,
    power: powerLineOf(overall.a, checksB.at(-1)?.seeds ?? checksA.at(-1)?.seeds ?? 0),
  };
};

/** Two checks compared: each a series of one. */
export const compareReports = (a: PlacementReport, b: PlacementReport): PlacementComparison =>
  compareSeries([a], [b]);
