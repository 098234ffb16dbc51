// The comparison's statistics (stratifiedTest.ts, statistics.ts's Newcombe interval and Holm, fisherPower.ts) against
// the hand-computed table in statisticsCases.ts; and the smallest possible p against every outcome of small designs.
import { describe, expect, it } from 'vitest';
import { fisherPower, seedsForPower } from '../../shared/domain/fisherPower';
import { fisherExact, holmAdjust, newcombeInterval, rateOf } from '../../shared/domain/statistics';
import { exactConditionalTest, type Stratum, smallestPossibleP } from '../../shared/domain/stratifiedTest';
import {
  EXACT_CONDITIONAL_CASES,
  HOLM_CASE,
  NEWCOMBE_PUBLISHED,
  NEWCOMBE_SOURCE,
  POWER_CASE,
} from './statisticsCases';

const stratum = ([countA, ofA, countB, ofB]: readonly number[]): Stratum => ({
  countA: countA as number,
  ofA: ofA as number,
  countB: countB as number,
  ofB: ofB as number,
});

describe('exactConditionalTest', () => {
  it.each(EXACT_CONDITIONAL_CASES)('$name', ({ strata, p }) => {
    expect(exactConditionalTest(strata.map(stratum))).toBeCloseTo(p, 12);
  });

  it("is Fisher's test with one stratum, on every table with rows up to 12", () => {
    let worst = 0;
    for (let ofA = 0; ofA <= 12; ofA++)
      for (let ofB = 0; ofB <= 12; ofB++)
        for (let a = 0; a <= ofA; a++)
          for (let b = 0; b <= ofB; b++) {
            const p = exactConditionalTest([{ countA: a, ofA, countB: b, ofB }]);
            worst = Math.max(worst, Math.abs(p - fisherExact(a, ofA - a, b, ofB - b)));
          }
    expect(worst).toBeLessThan(1e-12);
  });

  it('refuses counts that are not counts', () => {
    expect(() => exactConditionalTest([{ countA: 3, ofA: 2, countB: 0, ofB: 1 }])).toThrow(RangeError);
    expect(() => exactConditionalTest([{ countA: 0.5, ofA: 2, countB: 0, ofB: 1 }])).toThrow(RangeError);
  });
});

/** Every outcome of a design (each stratum's counts over all their values): the true smallest p. */
const smallestByEnumeration = (sizes: readonly [number, number][]): number => {
  let smallest = 1;
  const walk = (index: number, chosen: Stratum[]) => {
    if (index === sizes.length) {
      smallest = Math.min(smallest, exactConditionalTest(chosen));
      return;
    }
    const [ofA, ofB] = sizes[index] as [number, number];
    for (let a = 0; a <= ofA; a++)
      for (let b = 0; b <= ofB; b++) walk(index + 1, [...chosen, { countA: a, ofA, countB: b, ofB }]);
  };
  walk(0, []);
  return smallest;
};

describe('smallestPossibleP', () => {
  it('is the smallest p over every outcome, for one stratum of up to 9 a side', () => {
    for (let ofA = 1; ofA <= 9; ofA++)
      for (let ofB = 1; ofB <= 9; ofB++) {
        const sizes: [number, number][] = [[ofA, ofB]];
        expect(
          smallestPossibleP(sizes.map(([a, b]) => ({ countA: 0, ofA: a, countB: 0, ofB: b }))),
        ).toBeCloseTo(smallestByEnumeration(sizes), 12);
      }
  });

  it('is the smallest p over every outcome, for designs of two and three strata', () => {
    const designs: [number, number][][] = [
      [
        [1, 1],
        [1, 1],
      ],
      [
        [2, 1],
        [1, 3],
      ],
      [
        [3, 3],
        [2, 2],
      ],
      [
        [1, 4],
        [4, 1],
      ],
      [
        [1, 1],
        [2, 2],
        [1, 3],
      ],
      [
        [3, 1],
        [1, 1],
        [2, 3],
      ],
    ];
    for (const sizes of designs)
      expect(
        smallestPossibleP(sizes.map(([a, b]) => ({ countA: 0, ofA: a, countB: 0, ofB: b }))),
      ).toBeCloseTo(smallestByEnumeration(sizes), 12);
  });

  it('says three seeds a side can never reach 5 %, and five paired seeds neither, six can', () => {
    expect(smallestPossibleP([{ countA: 0, ofA: 3, countB: 0, ofB: 3 }])).toBeCloseTo(0.1, 12);
    const paired = (n: number) => Array.from({ length: n }, () => ({ countA: 0, ofA: 1, countB: 0, ofB: 1 }));
    expect(smallestPossibleP(paired(5))).toBeCloseTo(1 / 16, 12);
    expect(smallestPossibleP(paired(6))).toBeCloseTo(1 / 32, 12);
  });
});

describe(`newcombeInterval (${NEWCOMBE_SOURCE})`, () => {
  it.each(NEWCOMBE_PUBLISHED)(
    '%i/%i - %i/%i: [%f, %f] as Newcombe 1998 prints it',
    (a, n, b, m, low, high) => {
      // The interval is of b's rate minus a's: the paper's A - B is ours with the sides swapped.
      const interval = newcombeInterval(rateOf(b, m), rateOf(a, n));
      expect(interval?.low).toBeCloseTo(low, 4);
      expect(interval?.high).toBeCloseTo(high, 4);
    },
  );

  it('holds the difference, stays within [-1, 1], and is null with nothing counted', () => {
    for (const [a, n, b, m] of [
      [0, 3, 3, 3],
      [3, 3, 0, 3],
      [0, 1, 1, 1],
      [7, 30, 21, 30],
    ] as const) {
      const interval = newcombeInterval(rateOf(a, n), rateOf(b, m));
      const difference = b / m - a / n;
      expect(interval?.low).toBeLessThanOrEqual(difference);
      expect(interval?.high).toBeGreaterThanOrEqual(difference);
      expect(interval?.low).toBeGreaterThanOrEqual(-1);
      expect(interval?.high).toBeLessThanOrEqual(1);
    }
    expect(newcombeInterval(rateOf(0, 0), rateOf(1, 2))).toBeNull();
  });
});

describe('holmAdjust', () => {
  it('adjusts as p.adjust(method = "holm"), leaving untested ones null and out of the family', () => {
    const adjusted = holmAdjust(HOLM_CASE.p);
    for (const [index, want] of HOLM_CASE.adjusted.entries())
      if (want === null) expect(adjusted[index]).toBeNull();
      else expect(adjusted[index]).toBeCloseTo(want, 12);
  });
});

describe('fisherPower', () => {
  it('needs 69 seeds a side to tell 0.9 from 0.7 at 80 % power, as the issue says', () => {
    expect(seedsForPower(POWER_CASE.from, POWER_CASE.to)).toBe(POWER_CASE.seeds);
    expect(fisherPower(POWER_CASE.seeds - 1, POWER_CASE.from, POWER_CASE.to)).toBeCloseTo(
      POWER_CASE.powerBelow,
      4,
    );
    expect(fisherPower(POWER_CASE.seeds, POWER_CASE.from, POWER_CASE.to)).toBeCloseTo(POWER_CASE.powerAt, 4);
  });

  it('is the size of the test where nothing changes (at most 5 %), and 1 for certain outcomes', () => {
    expect(fisherPower(20, 0.5, 0.5)).toBeLessThanOrEqual(0.05);
    expect(fisherPower(10, 1, 0)).toBe(1);
  });
});
