// Owns the report's statistics: the Wilson score interval of a rate, Newcombe's interval of a difference of two, the
// two-sided and one-sided Fisher exact tests and Holm's correction (the stratified test is stratifiedTest.ts, power fisherPower.ts).
import type { RateInterval } from './placementReport';

/** The normal quantile for a two-sided 95 % interval. */
const Z_95 = 1.959964;

export interface Interval {
  low: number;
  high: number;
}

const assertCounts = (count: number, of: number): void => {
  if (!Number.isInteger(count) || !Number.isInteger(of) || count < 0 || of < 0 || count > of) {
    throw new RangeError('counts must be whole numbers with 0 <= count <= of');
  }
};

/**
 * The Wilson score interval (Wilson 1927) of count successes in `of` trials, without continuity correction; unlike
 * the plain normal interval it stays inside [0, 1] and does not collapse to a point at 0 of n or n of n.
 */
export const wilsonInterval = (count: number, of: number, z = Z_95): Interval | null => {
  assertCounts(count, of);
  if (of === 0) return null;
  const p = count / of;
  const z2 = z * z;
  const denominator = 1 + z2 / of;
  const centre = (p + z2 / (2 * of)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / of + z2 / (4 * of * of));
  // The bounds at 0 of n and n of n are exactly 0 and 1; rounding must not move them off.
  return {
    low: count === 0 ? 0 : Math.max(0, centre - half),
    high: count === of ? 1 : Math.min(1, centre + half),
  };
};

/** count of `of` with its 95 % Wilson interval; all null when there is nothing to count. */
export const rateOf = (count: number, of: number): RateInterval => {
  const interval = wilsonInterval(count, of);
  return {
    count,
    of,
    rate: of > 0 ? count / of : null,
    low: interval?.low ?? null,
    high: interval?.high ?? null,
  };
};

/**
 * The 95 % interval of b's rate minus a's by Newcombe's hybrid score method (method 10 of Newcombe 1998, Statistics
 * in Medicine 17:873-890): each side's Wilson interval, combined by squaring and adding the distances to its rate.
 * Null when either side has nothing counted.
 */
export const newcombeInterval = (a: RateInterval, b: RateInterval, z = Z_95): Interval | null => {
  const ia = a.of > 0 ? wilsonInterval(a.count, a.of, z) : null;
  const ib = b.of > 0 ? wilsonInterval(b.count, b.of, z) : null;
  if (!ia || !ib) return null;
  const [pa, pb] = [a.count / a.of, b.count / b.of];
  const difference = pb - pa;
  return {
    low: Math.max(-1, difference - Math.hypot(pb - ib.low, ia.high - pa)),
    high: Math.min(1, difference + Math.hypot(ib.high - pb, pa - ia.low)),
  };
};

/**
 * Holm's step-down correction (Holm 1979) of a family of p-values, as R's p.adjust(method = "holm"): nulls (no test)
 * stay null and are not counted in the family.
 */
export const holmAdjust = (pValues: readonly (number | null)[]): (number | null)[] => {
  const tested = pValues.flatMap((p, index) => (p === null ? [] : [{ p, index }]));
  tested.sort((x, y) => x.p - y.p);
  const adjusted: (number | null)[] = pValues.map(() => null);
  let running = 0;
  for (const [rank, { p, index }] of tested.entries()) {
    running = Math.max(running, Math.min(1, (tested.length - rank) * p));
    adjusted[index] = running;
  }
  return adjusted;
};

/** Beyond this many trials the table of log-factorials would outgrow what a report ever needs. */
const MAX_TRIALS = 1_000_000;

const logFactorials: number[] = [0];
/** ln(n!), summed once and kept: exact to rounding, where Stirling's series would add its own error. */
export const logFactorial = (n: number): number => {
  if (n > MAX_TRIALS) throw new RangeError('too many trials');
  for (let k = logFactorials.length; k <= n; k++)
    logFactorials[k] = (logFactorials[k - 1] as number) + Math.log(k);
  return logFactorials[n] as number;
};

/** R's fisher.test counts tables this much more likely than the observed one as equally likely (rounding). */
export const RELATIVE_TOLERANCE = 1e-7;

/**
 * The two-sided p-value of Fisher's exact test on the 2 × 2 table [[a, b], [c, d]] (rows: the two samples;
 * columns: success, failure), as R's fisher.test computes it: the sum of the hypergeometric probabilities of all
 * tables with the same margins that are no more likely than the observed one.
 */
export const fisherExact = (a: number, b: number, c: number, d: number): number => {
  for (const cell of [a, b, c, d]) assertCounts(cell, cell);
  const row1 = a + b;
  const row2 = c + d;
  const col1 = a + c;
  const n = row1 + row2;
  if (n > MAX_TRIALS) throw new RangeError('too many trials');
  const fixed =
    logFactorial(row1) + logFactorial(row2) + logFactorial(col1) + logFactorial(n - col1) - logFactorial(n);
  const logP = (x: number) =>
    fixed - logFactorial(x) - logFactorial(row1 - x) - logFactorial(col1 - x) - logFactorial(row2 - col1 + x);
  const observed = logP(a);
  const threshold = observed + Math.log1p(RELATIVE_TOLERANCE);
  let p = 0;
  let allCounted = true;
  for (let x = Math.max(0, col1 - row2); x <= Math.min(row1, col1); x++) {
    const logPx = logP(x);
    if (logPx <= threshold) p += Math.exp(logPx);
    else allCounted = false;
  }
  // Every table counted is the whole distribution: exactly 1, where summing rounded terms could fall short.
  return allCounted ? 1 : Math.min(1, p);
};

/**
 * The one-sided p-value of Fisher's exact test that the first row's success share is lower than the second's, as
 * R's fisher.test(alternative = "less"): the hypergeometric probability of a or fewer successes in row 1.
 */
export const fisherLess = (a: number, b: number, c: number, d: number): number => {
  for (const cell of [a, b, c, d]) assertCounts(cell, cell);
  const row1 = a + b;
  const row2 = c + d;
  const col1 = a + c;
  const n = row1 + row2;
  if (n > MAX_TRIALS) throw new RangeError('too many trials');
  // The whole distribution: exactly 1, where summing rounded terms could fall short.
  if (a >= Math.min(row1, col1)) return 1;
  const fixed =
    logFactorial(row1) + logFactorial(row2) + logFactorial(col1) + logFactorial(n - col1) - logFactorial(n);
  let p = 0;
  for (let x = Math.max(0, col1 - row2); x <= a; x++)
    p += Math.exp(
      fixed -
        logFactorial(x) -
        logFactorial(row1 - x) -
        logFactorial(col1 - x) -
        logFactorial(row2 - col1 + x),
    );
  return Math.min(1, p);
};
