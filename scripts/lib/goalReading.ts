// Owns how a goal of scripts/lib/goals.ts reads its figure from a benchmark run's section: the goal's shape,
// paths into the results, milliseconds, and a cost per check written out as its arithmetic.

export interface Goal {
  section: string;
  goal: string;
  command: string;
  read(section: Record<string, unknown>): { measured: string; pass: boolean | undefined };
  /** Why the goal is missed when its figure misses it: the cause, never a figure (the figure is the row's). */
  missed?: string;
}

export const get = (value: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], value);
export const num = (value: unknown, path: string): number => {
  const found = get(value, path);
  return typeof found === 'number' ? found : Number.NaN;
};
export const str = (value: unknown, path: string): string => String(get(value, path) ?? 'n/a');
export const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)} ms` : 'n/a');

export const BENCH = 'npm run bench -- --only';

/** Table and index write units; a run from before the index writes were counted doubled every table unit. */
const writeSplit = (perCheck: unknown) => {
  const index = num(perCheck, 'dynamoIndexWriteUnits');
  const table = num(perCheck, 'dynamoTableWriteUnits');
  return Number.isFinite(index) ? `${table} table + ${index} index` : `${table} table, doubled for the index`;
};

/** A cost per check as its sum: each measured count times its list price (bench/checkCost.ts costBetween). */
export const costArithmetic = (perCheck: unknown, prices: unknown): string => {
  const n = (path: string) => num(perCheck, path);
  const p = (path: string) => num(prices, path);
  const perMillion = (price: number) => `$${round(price * 1e6, 3)}/M`;
  /** The memory the run priced a function at; runs from before it was recorded used these. */
  const memory = (path: string, before: number) => (Number.isFinite(n(path)) ? n(path) : before);
  return `${[
    `$${n('totalDollars')} = ${n('dynamoReadUnits')} RRU × ${perMillion(p('dynamoReadRequestUnit'))}`,
    `${n('dynamoWriteUnits')} WRU (${writeSplit(perCheck)}) × ${perMillion(p('dynamoWriteRequestUnit'))}`,
    `API ${n('apiGbSeconds')} GB-s (${n('apiHandlerMs')} ms at ${memory('apiMemoryMb', 256)} MB) + scanner ${n('scannerGbSeconds')} GB-s (${n('scannerLoopMs')} ms at ${memory('scannerMemoryMb', 512)} MB), × $${p('lambdaArmGbSecond')}/GB-s`,
    `${n('apiCalls')} API + ${n('scannerInvocations')} scanner invocations × ${perMillion(p('lambdaRequest'))}`,
    // Runs from before the sender audit was counted have no audit time.
    ...(Number.isFinite(n('auditGbSeconds'))
      ? [
          `audit ${n('auditGbSeconds')} GB-s (${n('auditMs')} ms for ${n('audits')} audits, ${n('auditFetches')} source fetches, billed as scanner time: an upper bound) × $${p('lambdaArmGbSecond')}/GB-s`,
        ]
      : []),
    // Runs from before API Gateway was counted have no price for it.
    ...(Number.isFinite(p('apiGatewayHttpRequest'))
      ? [`${n('apiCalls')} API Gateway requests × ${perMillion(p('apiGatewayHttpRequest'))}`]
      : []),
  ].join(' + ')}; us-east-1 list prices as of ${String(get(prices, 'asOf')).slice(0, 10)}`;
};
const round = (value: number, digits: number) => Number(value.toFixed(digits));
