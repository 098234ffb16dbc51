// Owns the hostile inputs of the linear-time checks and how growth is measured on them: runs of blanks, colons, `=?`,
// nested comments, one long line and many short lines, and an HTML part's `&`, `<`, `"`, unterminated comments and
// CDATA, each fed to every function of linearitySubjects.ts at sizes growing eightfold up to a megabyte.
// test/unit/linearity.test.ts asserts the growth; bench/linearParsing.ts reports the worst case at the largest size.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SUBJECTS, type Subject, TAG } from './linearitySubjects';

export { SUBJECTS, type Subject };

/**
 * Payload sizes in bytes, each exactly eight times the one before (three doublings a step), up to a megabyte (1 MB,
 * under a header block's cap of 1 MiB). The smallest stops a quadratic case before a megabyte of it takes minutes.
 */
export const SIZES = [15_625, 125_000, 1_000_000] as const;
export const LARGEST_SIZE = SIZES[2];
/** Growth allowed per doubling of the input: linear. A step of three doublings may grow 2 ** 3 = 8 times. */
export const MAX_DOUBLING_GROWTH = 2;
/**
 * What a step's larger time may exceed its allowed growth by: the timing's own noise, not growth. Measured on this
 * harness (CPU time, best of the rounds), the best time of one call varies by up to about 3 % between runs: 0.6 ms
 * at the slowest linear case here (20 ms at 1 MB), far less below. A millisecond covers that, and a base of a few
 * microseconds (a function that reads nothing past a cap) cannot fail on it; a quadratic step exceeds it by the
 * whole of its growth, tens of milliseconds (the `&` search this was written for: 59 ms at 128 KB, 3.8 s at 1 MB).
 */
export const NOISE_MS = 1;

/** Repeats `unit` to `bytes` characters. */
const fill = (unit: string, bytes: number) => unit.repeat(Math.max(1, Math.floor(bytes / unit.length)));

/** What a hostile sender or client writes, `bytes` long; `field` is the header it is written into, if any. */
export const PAYLOADS: Readonly<Record<string, (bytes: number, field: string) => string>> = {
  blanks: (bytes) => `${fill(' \t', bytes)}x`,
  colons: (bytes) => fill(':', bytes),
  'encoded words': (bytes) => fill('=?', bytes),
  'nested comments': (bytes) => `${fill('(', bytes / 2)}${fill(')', bytes / 2)}`,
  'one long line': (bytes) => fill('for <a=b;c:d@e> (f) reason="g" ', bytes),
  'short lines': (bytes) => fill('\n a=b; c:d', bytes),
  'short fields': (bytes, field) => fill(`\n${field}: a`, bytes),
  // What an HTML part's reader meets: entity starts, tag starts, quotes, and constructs opened and never closed.
  ampersands: (bytes) => fill('&', bytes),
  'angle brackets': (bytes) => fill('<', bytes),
  quotes: (bytes) => fill('"', bytes),
  'unterminated comments': (bytes) => fill('<!--', bytes),
  'unterminated CDATA': (bytes) => fill('<![CDATA[', bytes),
  'spaced tags': (bytes) => {
    // Under the tag-candidate cap, so every tag is read, with the rest of the line between them.
    const tags = 900;
    return fill(`${' '.repeat(Math.max(1, Math.floor(bytes / tags) - TAG.length - 1))}${TAG},`, bytes);
  },
};

/** A full collection, so garbage an earlier case left is not booked to the next one. */
const collectGarbage = (): (() => void) => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
};
const fullGc = collectGarbage();
/** Heap in use after the last full collection. */
let collectedAt = 0;
/**
 * A full collection before a ladder once the heap has grown 32 MB since the last one: in a test runner's heap one
 * costs tens of milliseconds, and one per ladder was most of the test's time; garbage under that is a young
 * collection inside one window, which the best of the rounds leaves out.
 */
const gc = () => {
  if (process.memoryUsage().heapUsed < collectedAt + 32 * 1024 * 1024) return;
  fullGc();
  collectedAt = process.memoryUsage().heapUsed;
};

/** Rounds for a subject that allocates a lot: a collection can still fall inside some of its windows. */
const ALLOCATING_REPS = 5;

/** Calls in one timing window at most, for a call that takes next to nothing. */
const MAX_CALLS = 100_000;

/** Sinks every result, so no call can be optimised away. */
const sink: { result?: unknown } = {};

/** CPU milliseconds of `calls` calls of `subject` on `input`, a promise it returns awaited (contentFactsOf). */
const cpuMsOf = async (subject: Subject, input: unknown, calls: number): Promise<number> => {
  const started = process.cpuUsage();
  for (let call = 0; call < calls; call++) {
    const result = subject.run(input);
    sink.result = result instanceof Promise ? await result : result;
  }
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
};

/**
 * A timing window of `subject` on `input`, as the time of one call: as many calls as make the window about `minMs`
 * of CPU time, the count found after one untimed call (compilation, flattening the input) by windows ten times
 * longer each from a tenth of `minMs` (the count's cost: about a ninth of one window). Windows of the same length
 * at every size: on a shared machine a long window is interrupted more often than a short one.
 */
const windowOf = async (subject: Subject, input: unknown, minMs: number) => {
  await cpuMsOf(subject, input, 1);
  let calls = 1;
  let elapsed = await cpuMsOf(subject, input, calls);
  while (elapsed < minMs / 10 && calls < MAX_CALLS) {
    calls = Math.min(MAX_CALLS, calls * 10);
    elapsed = await cpuMsOf(subject, input, calls);
  }
  calls = Math.max(1, Math.min(MAX_CALLS, Math.round((calls * minMs) / Math.max(elapsed, 0.001))));
  return {
    estimateMs: elapsed / Math.max(1, calls),
    time: async () => (await cpuMsOf(subject, input, calls)) / calls,
  };
};

export interface Growth {
  subject: string;
  payload: string;
  /** The sizes timed: a step far over its allowance while the windows are sized stops the ladder there. */
  sizes: number[];
  /** The best time of one call at each size over the rounds. */
  ms: number[];
  /** Each step's growth per doubling: (larger time / smaller time) ** (1 / doublings); what is judged is `steep`. */
  perDoubling: number[];
  /** Whether some step's larger time exceeds MAX_DOUBLING_GROWTH ** doublings × its smaller time + NOISE_MS. */
  steep: boolean;
}

/** The most a step from `size` at `ms` to `next` may cost: linear growth, and the timing's noise. */
const allowedMs = (size: number, ms: number, next: number) =>
  MAX_DOUBLING_GROWTH ** Math.log2(next / size) * ms + NOISE_MS;

/**
 * Times `subject` on `payload` at each of SIZES up to `largest`: one window per size, sized smallest first (a size
 * whose estimate is already ten times over its step's allowance ends the ladder: a quadratic megabyte would take
 * minutes), then `reps` rounds (ALLOCATING_REPS at least for a subject that allocates) over all sizes in turns
 * (smaller, larger, smaller…), each size's best time kept: a spell of load, a neighbour filling the caches or a slower clock falls on every size alike.
 */
export const growthOf = async (
  subject: Subject,
  payload: string,
  { reps = 3, minMs = 8, largest = LARGEST_SIZE }: { reps?: number; minMs?: number; largest?: number } = {},
): Promise<Growth> => {
  const make = PAYLOADS[payload];
  if (!make) throw new Error(`no payload named ${payload}`);
  gc();
  const sizes: number[] = [];
  const windows: Awaited<ReturnType<typeof windowOf>>[] = [];
  for (const size of SIZES.filter((each) => each <= largest)) {
    const window = await windowOf(subject, subject.input(make(size, subject.field)), minMs);
    sizes.push(size);
    windows.push(window);
    const before = windows.at(-2);
    const smaller = sizes.at(-2);
    if (before && smaller && window.estimateMs > 10 * allowedMs(smaller, before.estimateMs, size)) break;
  }
  const ms = sizes.map(() => Number.POSITIVE_INFINITY);
  const rounds = subject.allocates ? Math.max(reps, ALLOCATING_REPS) : reps;
  for (let rep = 0; rep < rounds; rep++)
    for (const [at, window] of windows.entries()) ms[at] = Math.min(ms[at] ?? 0, await window.time());
  sink.result = undefined;
  const steps = sizes
    .slice(1)
    .map((size, at) => ({ size, from: sizes[at] ?? 0, ms: ms[at + 1] ?? 0, base: ms[at] ?? 0 }));
  return {
    subject: subject.name,
    payload,
    sizes,
    ms,
    perDoubling: steps.map(
      (step) => (step.ms / Math.max(step.base, 1e-6)) ** (1 / Math.log2(step.size / step.from)),
    ),
    steep: steps.some((step) => step.ms > allowedMs(step.from, step.base, step.size)),
  };
};

/** Tries at most for a ladder: the test and the benchmark time a steep one again, up to this many times in all. */
export const ATTEMPTS = 3;

/**
 * A ladder timed again while it looks steep or was cut short, up to ATTEMPTS in all: on a shared machine one timing
 * can be taxed by a neighbour or a cache; a cost that really grows faster than linear is steep in every attempt.
 */
export const growthOn = async (
  subject: Subject,
  payload: string,
  options?: Parameters<typeof growthOf>[2],
  /** The benchmark's smoke test times each ladder once: it reports, it does not judge. */
  attempts = ATTEMPTS,
): Promise<Growth> => {
  const sizes = SIZES.filter((each) => each <= (options?.largest ?? LARGEST_SIZE)).length;
  // Cut short counts as steep: one sizing call taxed tenfold by a collection or a neighbour stops a ladder early.
  const again = (growth: Growth) => growth.steep || growth.sizes.length < sizes;
  let growth = await growthOf(subject, payload, options);
  for (let attempt = 1; attempt < attempts && again(growth); attempt++)
    growth = await growthOf(subject, payload, options);
  return growth;
};
