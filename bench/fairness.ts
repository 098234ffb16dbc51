// Benchmark: fairness under `npm start` (scripts/lib/fairLoad.ts): a second key's start and GET p99 while one key
// floods GET at 10 times its read limit and made-up keys flood, against the same run's unloaded p99.
import { runFairLoad } from '../scripts/lib/fairLoad';

export const runFairnessBench = async (): Promise<Record<string, unknown>> => {
  const { figures, measuredStatuses } = await runFairLoad();
  return { benchmark: 'fairness under floods', ...figures, measuredStatuses, node: process.version };
};
