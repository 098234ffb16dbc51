// The hand-computed cases the comparison's statistics are held to, each with where its number comes from. "Exact":
// computed in exact rational arithmetic by test/unit/statisticsReference.py (python3, fractions only), which follows
// R's rules (fisher.test's and mantelhaen.test's relative tolerance 1 + 1e-7, binom.test's two-sided sum); R itself
// is not installed here. "Published": printed in the source named.

/** [A counted, A of, B counted, B of] per stratum, and the two-sided p-value. */
export const EXACT_CONDITIONAL_CASES: readonly {
  name: string;
  strata: readonly [number, number, number, number][];
  p: number;
  source: string;
}[] = [
  {
    name: "R's mantelhaen.test example (Rabbits, penicillin), exact = TRUE",
    strata: [
      [0, 6, 0, 5],
      [3, 6, 0, 6],
      [6, 6, 2, 6],
      [5, 6, 6, 6],
      [2, 2, 5, 5],
    ],
    p: 29 / 726,
    source:
      "exact: 29/726 = 0.039945, which R's help page for mantelhaen.test prints as p-value = 0.03994 (S = 16)",
  },
  {
    name: 'fisher.test of 3 of 3 against 0 of 3 (the issue: the smallest p three seeds allow)',
    strata: [[3, 3, 0, 3]],
    p: 1 / 10,
    source: 'exact: the two extreme tables, 1/20 each, of choose(6, 3) = 20',
  },
  {
    name: 'exact McNemar: 10 seeds inbox in A only, 2 in B only, 8 concordant = binom.test(2, 12)',
    strata: [
      ...Array.from({ length: 10 }, () => [1, 1, 0, 1] as [number, number, number, number]),
      ...Array.from({ length: 2 }, () => [0, 1, 1, 1] as [number, number, number, number]),
      ...Array.from({ length: 5 }, () => [1, 1, 1, 1] as [number, number, number, number]),
      ...Array.from({ length: 3 }, () => [0, 1, 0, 1] as [number, number, number, number]),
    ],
    p: 79 / 2048,
    source: 'exact: 2 * (1 + 12 + 66) / 4096, binom.test(2, 12)$p.value',
  },
  {
    name: 'exact McNemar: 5 discordant seeds all one way = binom.test(0, 5)',
    strata: Array.from({ length: 5 }, () => [1, 1, 0, 1] as [number, number, number, number]),
    p: 1 / 16,
    source: 'exact: 2 / 32; the smallest p five paired seeds allow, above 0.05',
  },
  {
    name: 'three seeds seen in three checks a side, stratified by seed',
    strata: [
      [3, 3, 0, 3],
      [2, 3, 1, 3],
      [3, 3, 1, 3],
    ],
    p: 11 / 500,
    source: 'exact: statisticsReference.py ("by seed")',
  },
];

/** Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10: [A count, A of, B count, B of, low, high] for A - B. */
export const NEWCOMBE_PUBLISHED: readonly [number, number, number, number, number, number][] = [
  [56, 70, 48, 80, 0.0524, 0.3339],
  [9, 10, 3, 10, 0.1705, 0.809],
  [5, 56, 0, 29, -0.0381, 0.1926],
];
export const NEWCOMBE_SOURCE =
  "published: Newcombe 1998 Table II examples (a), (b), (d), method 10, to 4 decimals, as the R packages ratesci (moverci, type 'wilson') and propint quote them in their own tests";

/** R's p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm"), worked by hand: 5, 4, 3, 2, 1 times p, running maximum. */
export const HOLM_CASE = {
  p: [0.03, 0.01, null, 0.05, 0.02, 0.04],
  adjusted: [0.09, 0.05, null, 0.09, 0.08, 0.09],
  source: 'hand: sorted 0.01..0.05 times 5..1 = 0.05, 0.08, 0.09, 0.08, 0.05, then the running maximum',
};

/**
 * Fisher's two-sided test at 5 %, 80 % power to tell 0.9 from 0.7 with n seeds a side: the figure, 69, and
 * the powers either side of it by exact enumeration of every pair of outcomes (statisticsReference.py's twin,
 * its power(), in floats).
 */
export const POWER_CASE = { from: 0.9, to: 0.7, seeds: 69, powerBelow: 0.7997, powerAt: 0.8073 };
