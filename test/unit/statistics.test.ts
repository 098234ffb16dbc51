// The report's statistics (shared/domain/statistics.ts) against values published by others, each with its source,
// and the properties an interval must have whatever the counts.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fisherExact, wilsonInterval } from '../../shared/domain/statistics';

/**
 * R's binom package, binom.confint(x, n, tol = 1e-8), method "wilson", as statsmodels keeps them for its own tests
 * (statsmodels/stats/tests/results/results_proportion.py): [x, n, lower, upper].
 */
const R_BINOM_WILSON: readonly [number, number, number, number][] = [
  [18, 20, 0.6989663547715128, 0.972133518786232],
  [4, 20, 0.0806576625797981, 0.4160174322518935],
  [4, 200, 0.00780442641634947, 0.05028708690582643],
  [190, 200, 0.910421851861224, 0.972617354399236],
  [1, 30, 0.00590859, 0.16670391],
  [29, 30, 0.8332961, 0.9940914],
  [0, 30, 0, 0.11351339],
  [30, 30, 0.8864866, 1],
];

/**
 * Two-sided p-values: R's fisher.test on Fisher's tea-tasting table (R documentation example; Penn State STAT 504,
 * TeaLady.out), and scipy.stats.fisher_exact 1.9.3 as Apache Commons Statistics keeps them for its own tests
 * (FisherExactTestTest.java: SciPy's examples, Wikipedia's, larger tables and edge cases): [a, b, c, d, p].
 */
const PUBLISHED_FISHER: readonly [number, number, number, number, number][] = [
  [3, 1, 1, 3, 0.4857],
  [6, 2, 1, 4, 0.10256410256410256],
  [8, 2, 1, 5, 0.034965034965034975],
  [1, 9, 11, 3, 0.0027594561852200836],
  [123, 92, 424, 313, 0.9376713563018861],
  [123, 92, 424, 113, 4.434744613652278e-9],
  [67, 42, 23, 88, 8.732787245248246e-10],
  [0, 0, 0, 1, 1],
  [1, 0, 0, 1, 1],
  [0, 1, 1, 0, 1],
];

/** How many significant digits a published value carries. */
const digitsOf = (value: number): number =>
  (value.toExponential().split('e')[0] ?? '').replace('.', '').length;

describe('wilsonInterval', () => {
  it.each(R_BINOM_WILSON)('%i of %i agrees with R binom.confint', (x, n, lower, upper) => {
    const interval = wilsonInterval(x, n);
    expect(interval?.low).toBeCloseTo(lower, 6);
    expect(interval?.high).toBeCloseTo(upper, 6);
  });

  it('is exactly 0 below 0 of n and exactly 1 above n of n', () => {
    expect(wilsonInterval(0, 30)?.low).toBe(0);
    expect(wilsonInterval(30, 30)?.high).toBe(1);
  });

  it('meets Wilson’s bounds at the edges in closed form: 0 of n up to z²/(n + z²), n of n from n/(n + z²)', () => {
    const z2 = 1.959964 ** 2;
    for (let n = 1; n <= 50; n++) {
      expect(wilsonInterval(0, n)?.high).toBeCloseTo(z2 / (n + z2), 12);
      expect(wilsonInterval(n, n)?.low).toBeCloseTo(n / (n + z2), 12);
    }
  });

  it('gives the intervals the README quotes for three seeds', () => {
    const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8').replace(/\s+/g, ' ');
    const full = wilsonInterval(3, 3);
    const none = wilsonInterval(0, 3);
    expect(readme).toContain(`3 of 3 reads as ${full?.low.toFixed(2)} to ${full?.high}`);
    expect(readme).toContain(`0 of 3 as ${none?.low} to ${none?.high.toFixed(2)}`);
  });

  it('has none for nothing counted, and refuses counts that cannot be', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(() => wilsonInterval(4, 3)).toThrow(RangeError);
    expect(() => wilsonInterval(-1, 3)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 3)).toThrow(RangeError);
  });

  it('holds the rate, inside [0, 1]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (n, share) => {
          const count = Math.round(share * n);
          const interval = wilsonInterval(count, n);
          expect(interval).not.toBeNull();
          if (!interval) return;
          expect(interval.low).toBeGreaterThanOrEqual(0);
          expect(interval.high).toBeLessThanOrEqual(1);
          expect(interval.low).toBeLessThanOrEqual(count / n);
          expect(interval.high).toBeGreaterThanOrEqual(count / n);
        },
      ),
    );
  });

  it('narrows as n grows at a fixed rate', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 2, max: 50 }),
        (denominator, rawNumerator, small, factor) => {
          const numerator = Math.min(rawNumerator, denominator);
          const width = (k: number) => {
            const interval = wilsonInterval(numerator * k, denominator * k);
            return interval ? interval.high - interval.low : Number.NaN;
          };
          expect(width(small * factor)).toBeLessThan(width(small));
        },
      ),
    );
  });
});

describe('fisherExact', () => {
  it.each(PUBLISHED_FISHER)('[[%i, %i], [%i, %i]] gives the published p = %s', (a, b, c, d, p) => {
    const actual = fisherExact(a, b, c, d);
    const digits = digitsOf(p);
    // Relative to the published value, to the digits it carries (the tea table's is printed to four).
    expect(Math.abs(actual - p) / p).toBeLessThan(digits >= 12 ? 1e-9 : 10 ** (1 - digits));
  });

  it('is the same whichever way the table is turned', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 4, maxLength: 4 }),
        ([a = 0, b = 0, c = 0, d = 0]) => {
          const p = fisherExact(a, b, c, d);
          expect(p).toBeGreaterThan(0);
          expect(p).toBeLessThanOrEqual(1);
          expect(fisherExact(c, d, a, b)).toBeCloseTo(p, 12);
          expect(fisherExact(a, c, b, d)).toBeCloseTo(p, 12);
        },
      ),
    );
  });

  it('refuses counts that cannot be', () => {
    expect(() => fisherExact(-1, 0, 0, 0)).toThrow(RangeError);
    expect(() => fisherExact(0.5, 0, 0, 0)).toThrow(RangeError);
  });
});
