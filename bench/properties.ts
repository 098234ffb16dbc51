// Benchmark: the header parsing and tag matching properties of scripts/lib/headerProperties.ts over 100,000+
// generated messages (the vitest run does a few thousand), with the time the scanner's per-message work takes.
// `npx tsx bench/properties.ts [--cases N] [--seed S]` prints one JSON summary.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { type MessageShape, messageArb } from '../scripts/lib/headerMessages';
import { describeMessage, featuresOf, problemsOf, scanOne } from '../scripts/lib/headerProperties';

/** A per-message budget the header-parsing times are counted against (overBudget); reported, never asserted here. */
const BUDGET_MS = 5;
// Messages are drawn in batches so a run of 100,000 never holds the megabyte-sized ones all at once.
const BATCH = 500;
/** Messages drawn and read first, untimed and unchecked, so JIT compilation is not counted as parsing time. */
const WARMUP = 2000;
/**
 * Before a message this big is timed, a full GC clears the megabytes the generator itself allocated, so a pause
 * caused by the benchmark is not booked to the parser; garbage the parser makes still counts.
 */
const GC_BEFORE_BYTES = 64 * 1024;

const collectGarbage = (): (() => void) => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
};

const percentile = (sorted: Float64Array, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

const round = (ms: number) => Math.round(ms * 1000) / 1000;

const timing = (times: number[]) => {
  const sorted = Float64Array.from(times).sort();
  const total = times.reduce((sum, time) => sum + time, 0);
  return {
    count: times.length,
    meanMs: round(times.length > 0 ? total / times.length : 0),
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    maxMs: round(sorted[sorted.length - 1] ?? 0),
    overBudget: times.filter((time) => time > BUDGET_MS).length,
  };
};

export const runPropertyBench = async (options: {
  cases: number;
  seed?: number;
}): Promise<Record<string, unknown>> => {
  const seed = options.seed ?? Date.now() % 2_147_483_647;
  const times: number[] = [];
  const timesByShape = new Map<MessageShape, number[]>();
  const features = new Map<string, number>();
  const failures: string[] = [];
  let failed = 0;
  let slowest: { ms: number; shape: MessageShape; bytes: number } | undefined;
  const gc = collectGarbage();
  for (const message of fc.sample(messageArb, { numRuns: WARMUP, seed: seed - 1 })) scanOne(message);
  const started = performance.now();
  for (let done = 0, batch = 0; done < options.cases; batch++) {
    const count = Math.min(BATCH, options.cases - done);
    const messages = fc.sample(messageArb, { numRuns: count, seed: seed + batch });
    // The generator's own garbage (megabytes per batch) is collected before the batch is timed, not during it.
    gc();
    for (const message of messages) {
      const bytes = typeof message.raw === 'string' ? Buffer.byteLength(message.raw) : message.raw.length;
      if (bytes > GC_BEFORE_BYTES) gc();
      const before = performance.now();
      const result = scanOne(message);
      const ms = performance.now() - before;
      times.push(ms);
      const shapeTimes = timesByShape.get(message.shape) ?? [];
      shapeTimes.push(ms);
      timesByShape.set(message.shape, shapeTimes);
      if (!slowest || ms > slowest.ms) slowest = { ms: round(ms), shape: message.shape, bytes };
      for (const feature of featuresOf(message)) features.set(feature, (features.get(feature) ?? 0) + 1);
      const problems = problemsOf(message, result);
      if (problems.length > 0) {
        failed++;
        if (failures.length < 5) failures.push(`${problems.join('\n')}\n${describeMessage(message)}`);
      }
    }
    done += count;
  }
  return {
    benchmark: 'header parsing and tag matching properties',
    seed,
    warmupCases: WARMUP,
    gcBeforeMessagesOverBytes: GC_BEFORE_BYTES,
    cases: times.length,
    failures: failed,
    failureExamples: failures,
    perMessage: { budgetMs: BUDGET_MS, ...timing(times) },
    perShape: Object.fromEntries([...timesByShape].map(([shape, shapeTimes]) => [shape, timing(shapeTimes)])),
    slowest,
    features: Object.fromEntries([...features].sort(([a], [b]) => a.localeCompare(b))),
    durationS: round((performance.now() - started) / 1000),
    node: process.version,
  };
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { cases: { type: 'string', default: '100000' }, seed: { type: 'string' } },
  });
  const cases = Number(values.cases);
  if (!Number.isInteger(cases) || cases < 1)
    throw new Error(`--cases must be a positive integer, not ${values.cases}`);
  const summary = await runPropertyBench({
    cases,
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
  });
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  process.exitCode = summary.failures === 0 ? 0 : 1;
}
