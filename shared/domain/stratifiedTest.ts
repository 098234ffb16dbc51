// Owns the exact conditional test of independence in 2 × 2 × K tables (R's mantelhaen.test(exact = TRUE)), which is
// exact McNemar when each stratum is one seed seen once in each check, and Fisher's test when K is 1; and the
// smallest p-value a design's counts allow, which says whether a test could ever reach significance.
import { logFactorial, RELATIVE_TOLERANCE } from './statistics';

/** One stratum (a seed, or a provider): how many of A's copies counted (of how many), and the same for B. */
export interface Stratum {
  countA: number;
  ofA: number;
  countB: number;
  ofB: number;
}

/** Beyond this many cells in the distribution of the sum the test would hold a request too long. */
const MAX_WORK = 400_000_000;

const assertStratum = ({ countA, ofA, countB, ofB }: Stratum): void => {
  for (const [count, of] of [
    [countA, ofA],
    [countB, ofB],
  ] as const)
    if (!Number.isInteger(count) || !Number.isInteger(of) || count < 0 || count > of)
      throw new RangeError('counts must be whole numbers with 0 <= count <= of');
};

/** A stratum whose margins leave one table only (a side empty, or every copy or none counted) carries no evidence. */
const informative = (s: Stratum): boolean => {
  const successes = s.countA + s.countB;
  return s.ofA > 0 && s.ofB > 0 && successes > 0 && successes < s.ofA + s.ofB;
};

/** The hypergeometric densities of A's count given the stratum's margins, scaled so the largest is 1; and its least. */
const densityOf = (s: Stratum): { low: number; density: number[] } => {
  const successes = s.countA + s.countB;
  const low = Math.max(0, successes - s.ofB);
  const high = Math.min(s.ofA, successes);
  const logs: number[] = [];
  for (let x = low; x <= high; x++)
    logs.push(
      -logFactorial(x) -
        logFactorial(s.ofA - x) -
        logFactorial(successes - x) -
        logFactorial(s.ofB - successes + x),
    );
  const top = Math.max(...logs);
  return { low, density: logs.map((value) => Math.exp(value - top)) };
};

/**
 * The two-sided p-value of the exact conditional test: the distribution of the sum over strata of A's counts given
 * every stratum's margins (a convolution of hypergeometrics), summed over the values no more likely than the observed
 * one, with R's relative tolerance. Only strata that carry evidence are convolved; with none, nothing can differ: 1.
 */
export const exactConditionalTest = (strata: readonly Stratum[]): number => {
  strata.forEach(assertStratum);
  const used = strata.filter(informative);
  let distribution = [1];
  let observed = 0;
  let work = 0;
  for (const stratum of used) {
    const { low, density } = densityOf(stratum);
    observed += stratum.countA - low;
    work += distribution.length * density.length;
    if (work > MAX_WORK) throw new RangeError('too many copies to test exactly');
    const next = new Array<number>(distribution.length + density.length - 1).fill(0);
    for (const [i, di] of distribution.entries())
      for (const [j, dj] of density.entries()) next[i + j] = (next[i + j] as number) + di * dj;
    // Scaled back so the largest is 1: the far tails may underflow to 0, never the values that decide p.
    const top = next.reduce((max, value) => (value > max ? value : max), 0);
    distribution = next.map((value) => value / top);
  }
  const threshold = (distribution[observed] as number) * (1 + RELATIVE_TOLERANCE);
  let total = 0;
  let tail = 0;
  for (const value of distribution) {
    total += value;
    if (value <= threshold) tail += value;
  }
  return tail >= total ? 1 : tail / total;
};

/**
 * The smallest p-value the test can give with these strata's sizes, whatever the copies do: every stratum completely
 * separated, all of A's copies counted and none of B's, or the other way round (test/unit/stratifiedTest.test.ts
 * checks by enumerating every outcome of small designs that nothing else goes lower).
 */
export const smallestPossibleP = (strata: readonly Stratum[]): number => {
  const sized = strata.filter((s) => s.ofA > 0 && s.ofB > 0);
  if (sized.length === 0) return 1;
  const aAll = sized.map((s) => ({ countA: s.ofA, ofA: s.ofA, countB: 0, ofB: s.ofB }));
  const bAll = sized.map((s) => ({ countA: 0, ofA: s.ofA, countB: s.ofB, ofB: s.ofB }));
  return Math.min(exactConditionalTest(aAll), exactConditionalTest(bAll));
};
