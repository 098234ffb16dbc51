// Benchmark: fairness under `npm start` (scripts/lib/fairLoad.ts): a second key's start and GET p99 while one key
// floods GET at 10 times its read limit and made-up keys flood, against the same run's unloaded p99; and, reported
// beside it, what one refused request costs the process with the screen before the handler pipeline and without
// (scripts/lib/refusalCost.ts), side by side.
import { BENCH_WINDOWS, runFairLoad } from '../scripts/lib/fairLoad';
import { runRefusalCost } from '../scripts/lib/refusalCost';

export const runFairnessBench = async (): Promise<Record<string, unknown>> => {
  const { figures, measuredStatuses } = await runFairLoad(BENCH_WINDOWS);
  const refusalCpu = await runRefusalCost();
  return {
    benchmark: 'fairness under floods',
    ...figures,
    measuredStatuses,
    refusalCpu,
    node: process.version,
  };
};
