// Benchmark: every function that reads text a sender or an API client controls, on each hostile payload of
// scripts/lib/linearity.ts up to a megabyte: each function's worst CPU time of one call at the largest size, and
// its steepest step (each about eightfold). `npx tsx bench/linearParsing.ts` prints one JSON summary.
import { pathToFileURL } from 'node:url';
import {
  ATTEMPTS,
  growthOn,
  LARGEST_SIZE,
  MAX_STEP_RATIO,
  PAYLOADS,
  SIZES,
  SUBJECTS,
} from '../scripts/lib/linearity';

/** The goal for one call on the largest hostile input; reported against, never asserted here. */
const BUDGET_MS = 50;

const round = (value: number) => Math.round(value * 1000) / 1000;

export const runLinearParsingBench = (
  options: { reps?: number; largest?: number; minMs?: number } = {},
): Record<string, unknown> & {
  largestBytes: number;
  functions: { name: string; reachedLargest: boolean; worstMs: number; lastStepRatio: number }[];
} => {
  const started = performance.now();
  const largest = options.largest ?? LARGEST_SIZE;
  const functions = SUBJECTS.map((subject) => {
    const growths = Object.keys(PAYLOADS).map((payload) =>
      growthOn(subject, payload, {
        reps: options.reps ?? 5,
        largest,
        ...(options.minMs ? { minMs: options.minMs } : {}),
      }),
    );
    const atLargest = (ms: number[], sizes: number[]) => (sizes.at(-1) === largest ? (ms.at(-1) ?? 0) : 0);
    const worst = growths.reduce((a, b) => (atLargest(b.ms, b.sizes) > atLargest(a.ms, a.sizes) ? b : a));
    const lastStep = growths.reduce((a, b) => ((b.ratios.at(-1) ?? 0) > (a.ratios.at(-1) ?? 0) ? b : a));
    return {
      name: subject.name,
      // A ladder cut short (a step over MAX_STEP_RATIO) never reached the largest size: no figure there.
      reachedLargest: growths.every((growth) => growth.sizes.at(-1) === largest),
      worstMs: round(atLargest(worst.ms, worst.sizes)),
      worstPayload: worst.payload,
      /** The largest size's time over the one an eighth of it (1 MB over 128 KB), the steepest over the payloads. */
      lastStepRatio: round(lastStep.ratios.at(-1) ?? Number.NaN),
      lastStepPayload: lastStep.payload,
      growths: growths.map(({ payload, ms, ratios }) => ({
        payload,
        ms: ms.map(round),
        ratios: ratios.map(round),
      })),
    };
  });
  return {
    benchmark: 'linear parsing of hostile text',
    largestBytes: largest,
    sizes: SIZES.filter((size) => size <= largest),
    payloads: Object.keys(PAYLOADS),
    budgetMs: BUDGET_MS,
    maxStepRatio: MAX_STEP_RATIO,
    timing: `CPU time of one call, best of the repetitions; a ladder with a step over ${MAX_STEP_RATIO} × timed again, up to ${ATTEMPTS} times in all, as test/unit/linearity.test.ts does`,
    functions,
    durationS: round((performance.now() - started) / 1000),
    node: process.version,
  };
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(runLinearParsingBench(), null, 2)}\n`);
}
