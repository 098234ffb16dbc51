// Benchmark: every function that reads text a sender or an API client controls, on each hostile payload of
// scripts/lib/linearity.ts up to a megabyte: each function's worst CPU time of one call at the largest size, and
// its steepest growth per doubling (steps eightfold). `npx tsx bench/linearParsing.ts` prints one JSON summary.
import { pathToFileURL } from 'node:url';
import {
  ATTEMPTS,
  growthOn,
  LARGEST_SIZE,
  MAX_DOUBLING_GROWTH,
  NOISE_MS,
  PAYLOADS,
  SIZES,
  SUBJECTS,
} from '../scripts/lib/linearity';

/** The goal for one call on the largest hostile input; reported against, never asserted here. */
const BUDGET_MS = 50;

const round = (value: number) => Math.round(value * 1000) / 1000;

export const runLinearParsingBench = async (
  options: { reps?: number; largest?: number; minMs?: number; attempts?: number } = {},
): Promise<
  Record<string, unknown> & {
    largestBytes: number;
    functions: { name: string; reachedLargest: boolean; worstMs: number; lastStepPerDoubling: number }[];
  }
> => {
  const started = performance.now();
  const largest = options.largest ?? LARGEST_SIZE;
  const functions = [];
  for (const subject of SUBJECTS) {
    const growths = [];
    for (const payload of Object.keys(PAYLOADS))
      growths.push(
        await growthOn(
          subject,
          payload,
          {
            reps: options.reps ?? 5,
            largest,
            ...(options.minMs ? { minMs: options.minMs } : {}),
          },
          options.attempts,
        ),
      );
    const atLargest = (ms: number[], sizes: number[]) => (sizes.at(-1) === largest ? (ms.at(-1) ?? 0) : 0);
    const worst = growths.reduce((a, b) => (atLargest(b.ms, b.sizes) > atLargest(a.ms, a.sizes) ? b : a));
    const lastStep = growths.reduce((a, b) =>
      (b.perDoubling.at(-1) ?? 0) > (a.perDoubling.at(-1) ?? 0) ? b : a,
    );
    functions.push({
      name: subject.name,
      // A ladder cut short (a step far over its allowance) never reached the largest size: no figure there.
      reachedLargest: growths.every((growth) => growth.sizes.at(-1) === largest),
      worstMs: round(atLargest(worst.ms, worst.sizes)),
      worstPayload: worst.payload,
      /** Growth per doubling of the last step (1 MB over 125 KB), the steepest over the payloads. */
      lastStepPerDoubling: round(lastStep.perDoubling.at(-1) ?? Number.NaN),
      lastStepPayload: lastStep.payload,
      steep: growths.filter((growth) => growth.steep).map((growth) => growth.payload),
      growths: growths.map(({ payload, ms, perDoubling }) => ({
        payload,
        ms: ms.map(round),
        perDoubling: perDoubling.map(round),
      })),
    });
  }
  return {
    benchmark: 'linear parsing of hostile text',
    largestBytes: largest,
    sizes: SIZES.filter((size) => size <= largest),
    payloads: Object.keys(PAYLOADS),
    budgetMs: BUDGET_MS,
    maxDoublingGrowth: MAX_DOUBLING_GROWTH,
    noiseMs: NOISE_MS,
    timing: `CPU time of one call, best of the repetitions, sizes in turns; a ladder with a step over ${MAX_DOUBLING_GROWTH} × per doubling (+ ${NOISE_MS} ms) timed again, up to ${ATTEMPTS} times in all, as test/unit/linearity.test.ts does`,
    functions,
    durationS: round((performance.now() - started) / 1000),
    node: process.version,
  };
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(`${JSON.stringify(await runLinearParsingBench(), null, 2)}\n`);
}
