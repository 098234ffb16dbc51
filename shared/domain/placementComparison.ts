// Owns comparing two placement reports (GET /api/spam-check/compare, an addition): per rate both checks' counts with
// their intervals, the difference, Fisher's exact test, and one line a person can act on.
import type { CheckStatus } from './check';
import type { PlacementReport, RateInterval } from './placementReport';
import { fisherExact } from './statistics';

/** Below this p-value a difference is called larger than chance gives; the conventional two-sided 5 %. */
const SIGNIFICANCE_LEVEL = 0.05;

export const READINGS = {
  nothing: 'nothing to compare: one of the checks has no copy counted here',
  chance: 'the difference is within what chance gives with these few seeds',
  real: 'the difference is larger than chance alone gives with these seeds',
} as const;

export interface ComparedRate {
  a: RateInterval;
  b: RateInterval;
  /** b's rate minus a's; null when either has nothing counted. */
  difference: number | null;
  /** Two-sided Fisher exact test of the 2 × 2 table (count, of − count) for a and b; null as difference is. */
  p_value: number | null;
  reading: string;
}

export interface ComparedCheck {
  check_id: string;
  status: CheckStatus;
  started_at: string;
}

export interface PlacementComparison {
  a: ComparedCheck;
  b: ComparedCheck;
  overall: { inbox: ComparedRate };
  /** Every provider either check has copies at. */
  by_provider: Record<string, { inbox: ComparedRate; spam: ComparedRate }>;
}

const NOTHING: RateInterval = { count: 0, of: 0, rate: null, low: null, high: null };

const compareRates = (a: RateInterval, b: RateInterval): ComparedRate => {
  if (a.rate === null || b.rate === null) {
    return { a, b, difference: null, p_value: null, reading: READINGS.nothing };
  }
  const p = fisherExact(a.count, a.of - a.count, b.count, b.of - b.count);
  return {
    a,
    b,
    difference: b.rate - a.rate,
    p_value: p,
    reading: p < SIGNIFICANCE_LEVEL ? READINGS.real : READINGS.chance,
  };
};

const checkOf = (report: PlacementReport): ComparedCheck => ({
  check_id: report.check_id,
  status: report.status,
  started_at: report.started_at,
});

export const compareReports = (a: PlacementReport, b: PlacementReport): PlacementComparison => {
  const providers = [
    ...new Set([...Object.keys(a.summary.by_provider), ...Object.keys(b.summary.by_provider)]),
  ];
  const byProvider: PlacementComparison['by_provider'] = {};
  for (const provider of providers.sort()) {
    const ofA = a.summary.by_provider[provider]?.rates;
    const ofB = b.summary.by_provider[provider]?.rates;
    byProvider[provider] = {
      inbox: compareRates(ofA?.inbox ?? NOTHING, ofB?.inbox ?? NOTHING),
      spam: compareRates(ofA?.spam ?? NOTHING, ofB?.spam ?? NOTHING),
    };
  }
  return {
    a: checkOf(a),
    b: checkOf(b),
    overall: { inbox: compareRates(a.summary.rates.inbox, b.summary.rates.inbox) },
    by_provider: byProvider,
  };
};
