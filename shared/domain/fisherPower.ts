// Owns the power line of a comparison: how many seeds a side needs for Fisher's two-sided exact test at 5 % to detect
// a given change with 80 % power, by exact enumeration of every pair of outcomes (no normal approximation).
import { logFactorial, RELATIVE_TOLERANCE } from './statistics';

const ALPHA = 0.05;

const logChoose = (n: number, k: number): number => logFactorial(n) - logFactorial(k) - logFactorial(n - k);

const binomial = (n: number, p: number): number[] =>
  Array.from({ length: n + 1 }, (_, x) => {
    if (p === 0) return x === 0 ? 1 : 0;
    if (p === 1) return x === n ? 1 : 0;
    return Math.exp(logChoose(n, x) + x * Math.log(p) + (n - x) * Math.log1p(-p));
  });

/** Which counts of side A Fisher's test rejects at 5 % when the two sides (n each) count `total` together. */
const rejectedGiven = (n: number, total: number): { low: number; rejected: boolean[] } => {
  const low = Math.max(0, total - n);
  const high = Math.min(n, total);
  const logs: number[] = [];
  for (let x = low; x <= high; x++) logs.push(logChoose(n, x) + logChoose(n, total - x));
  const top = Math.max(...logs);
  const density = logs.map((value) => Math.exp(value - top));
  // Sorted with running sums, so each count's p-value is one binary search, not a pass over every table.
  const sorted = [...density].sort((x, y) => x - y);
  const running: number[] = [];
  let sum = 0;
  for (const value of sorted) {
    sum += value;
    running.push(sum);
  }
  const rejected = density.map((dx) => {
    const threshold = dx * (1 + RELATIVE_TOLERANCE);
    let [lo, hi] = [0, sorted.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((sorted[mid] as number) <= threshold) lo = mid + 1;
      else hi = mid;
    }
    return (lo === 0 ? 0 : (running[lo - 1] as number)) / sum < ALPHA;
  });
  return { low, rejected };
};

/** The chance that Fisher's two-sided test at 5 % rejects when A's rate is `from` and B's `to`, n seeds each. */
export const fisherPower = (n: number, from: number, to: number): number => {
  const a = binomial(n, from);
  const b = binomial(n, to);
  let power = 0;
  for (let total = 0; total <= 2 * n; total++) {
    const { low, rejected } = rejectedGiven(n, total);
    for (const [offset, reject] of rejected.entries())
      if (reject) power += (a[low + offset] as number) * (b[total - low - offset] as number);
  }
  return power;
};

/** Past this many seeds a side the answer is "more than this": enumeration grows with the cube of the seeds. */
export const MAX_POWER_SEEDS = 300;

const known = new Map<string, number | undefined>();

/** The fewest seeds a side for `power` to tell `from` from `to`; undefined past MAX_POWER_SEEDS. Kept once found. */
export const seedsForPower = (from: number, to: number, power = 0.8): number | undefined => {
  const key = `${from} ${to} ${power}`;
  if (known.has(key)) return known.get(key);
  let found: number | undefined;
  for (let n = 1; n <= MAX_POWER_SEEDS && found === undefined; n++)
    if (fisherPower(n, from, to) >= power) found = n;
  known.set(key, found);
  return found;
};
