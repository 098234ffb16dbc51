// Owns the hostile inputs of the linear-time checks and how growth is measured on them: every function that reads
// text a sender (a header block) or an API client (a path, a header) controls, fed runs of blanks, colons, `=?`,
// nested comments, one long line and many short lines, and an HTML part's `&`, `<`, `"`, unterminated comments and
// CDATA, each timed at sizes growing about eightfold.
// test/unit/linearity.test.ts asserts the growth; bench/linearParsing.ts reports the worst case at the largest size.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { tagList } from '../../shared/audit/dnsJudgement';
import { headerFactsOf } from '../../shared/audit/headerFacts';
import { scanHtml } from '../../shared/audit/htmlScan';
import { sendingHostOf } from '../../shared/audit/sendingHost';
import { bearerKeyOf } from '../../shared/domain/apiKey';
import { isCheckId } from '../../shared/domain/checkId';
import { allowedMethods, findRoute } from '../../shared/http/routes';
import { msDeliveryOf } from '../../shared/providers/msDelivery';
import { authVerdictOf } from '../../shared/scanner/authResults';
import { sentAtOf } from '../../shared/scanner/evidence';
import { headerBlockOf, MS_DELIVERY_HEADER, valueInBlock } from '../../shared/scanner/headers';
import { evidenceSeen, tagsInBlock } from '../../shared/scanner/recipients';
import { spamVerdictOf } from '../../shared/scanner/spamVerdict';

/**
 * Payload sizes in bytes, each about eight times the one before: the last step is the one that matters, 128 KB to a
 * header block's worth (1 MB, under the block's cap); the smaller ones stop a quadratic case before it takes minutes.
 */
export const SIZES = [2048, 16_384, 131_072, 1_000_000] as const;
export const LARGEST_SIZE = SIZES[3];
/** The most a step may cost over the one before it: linear is at most 8 (the size's growth), noise gets the rest. */
export const MAX_STEP_RATIO = 10;
/**
 * The smallest time a step's growth is measured from: under it a step is noise or a fixed cost, not growth that can
 * stall. A string over 128 KB lives in V8's large-object space, in freshly mapped pages: a function that copies a
 * megabyte (headerBlockOf decoding the block) pays that at a megabyte and not at 125 KB, a fraction of this.
 */
const MIN_BASE_MS = 0.25;

const ACCOUNT = 'inbox@mail.test';
const TAG = 'inbox+tc_abcdefghijklmnopqrst@mail.test';

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

/** A function that reads hostile text, and how a payload reaches it. */
export interface Subject {
  name: string;
  /** The header the payload is written into (for the `short fields` payload). */
  field: string;
  /** Builds the input once, outside the timing. */
  input(payload: string): unknown;
  run(input: unknown): unknown;
}

const block = (text: string) => text;
const asBlock = (input: unknown) => input as string;
const expectThrow = (work: () => unknown) => {
  try {
    return work();
  } catch (error) {
    return error;
  }
};

export const SUBJECTS: readonly Subject[] = [
  {
    name: 'headerBlockOf',
    field: 'to',
    // As imapflow hands the header block over.
    input: (payload) => Buffer.from(`To: ${payload}\n\nbody`, 'latin1'),
    run: (input) => headerBlockOf(input as Buffer),
  },
  {
    name: 'sentAtOf (Date)',
    field: 'date',
    input: (payload) => block(`Date: ${payload}\nTo: ${TAG}\n`),
    run: (input) => sentAtOf(asBlock(input)),
  },
  {
    name: 'tagsInBlock (Delivered-To)',
    field: 'delivered-to',
    input: (payload) => block(`Delivered-To: ${payload} ${TAG}\nTo: ${TAG}\n`),
    run: (input) => tagsInBlock(asBlock(input), ACCOUNT),
  },
  {
    name: 'tagsInBlock (Received for)',
    field: 'received',
    input: (payload) => block(`Received: from a by b for ${payload} <${TAG}>; date\n`),
    run: (input) => tagsInBlock(asBlock(input), ACCOUNT, ['received']),
  },
  {
    name: 'tagsInBlock (To and Cc)',
    field: 'to',
    input: (payload) => block(`To: ${payload} ${TAG}\nCc: ${TAG}\n`),
    run: (input) => tagsInBlock(asBlock(input), ACCOUNT),
  },
  {
    name: 'evidenceSeen',
    field: 'x-original-to',
    input: (payload) =>
      block(`X-Original-To: ${payload}\nReceived: by a for ${payload.slice(0, 64)} <${TAG}>\n`),
    run: (input) => evidenceSeen(asBlock(input), ACCOUNT),
  },
  {
    name: 'authVerdictOf',
    field: 'authentication-results',
    input: (payload) => block(`Authentication-Results: mx.test; spf=pass ${payload}\n`),
    run: (input) => authVerdictOf(asBlock(input), { ids: ['mx.test'] }),
  },
  {
    name: 'spamVerdictOf (X-Spam-Status)',
    field: 'x-spam-status',
    input: (payload) => block(`X-Spam-Status: Yes, score=9.0 required=5.0 tests=${payload}\n`),
    run: (input) => spamVerdictOf(asBlock(input), ['spamassassin']),
  },
  {
    name: 'spamVerdictOf (Microsoft)',
    field: 'x-forefront-antispam-report',
    input: (payload) =>
      block(`X-Forefront-Antispam-Report: SFV:SPM;${payload}\nX-Microsoft-Antispam: BCL:1;\n`),
    run: (input) => spamVerdictOf(asBlock(input), ['microsoft']),
  },
  {
    name: 'msDeliveryOf (header)',
    field: MS_DELIVERY_HEADER,
    input: (payload) => block(`${MS_DELIVERY_HEADER}: dest:J;${payload}\n`),
    run: (input) => msDeliveryOf(valueInBlock(asBlock(input), MS_DELIVERY_HEADER)),
  },
  {
    name: 'bearerKeyOf (Authorization)',
    field: 'authorization',
    input: (payload) => `Bearer ${payload}`,
    run: (input) => expectThrow(() => bearerKeyOf(input as string)),
  },
  {
    name: 'isCheckId (path)',
    field: 'path',
    input: (payload) => payload,
    run: (input) => isCheckId(input as string),
  },
  {
    name: 'sendingHostOf (Received)',
    field: 'received',
    input: (payload) => block(`Received: by mx.mail.test\nReceived: from a (${payload}) by mx.google.com\n`),
    run: (input) => sendingHostOf(asBlock(input), 'gmail'),
  },
  {
    name: 'headerFactsOf (From, List-Unsubscribe, DKIM-Signature)',
    field: 'dkim-signature',
    input: (payload) =>
      block(`From: ${payload}\nList-Unsubscribe: <${payload}>\nDKIM-Signature: d=a; h=${payload}\n`),
    run: (input) => headerFactsOf(asBlock(input)),
  },
  {
    name: 'scanHtml (an HTML part)',
    field: 'html',
    input: (payload) => `<a href="${payload}">${payload}</a><img ${payload}`,
    run: (input) => scanHtml(input as string),
  },
  {
    name: 'scanHtml (text of a part)',
    field: 'html',
    input: (payload) => `<p>${payload}</p>`,
    run: (input) => scanHtml(input as string),
  },
  {
    name: 'tagList (a DNS record)',
    field: 'txt',
    input: (payload) => `v=DMARC1; p=${payload}; rua=${payload}`,
    run: (input) => tagList(input as string),
  },
  {
    name: 'findRoute and allowedMethods (path)',
    field: 'path',
    input: (payload) => `/api/spam-check/${payload}/report`,
    run: (input) => [findRoute('GET', input as string), allowedMethods(input as string)],
  },
];

/** A full collection before each timing, so garbage an earlier case left is not booked to this one. */
const collectGarbage = (): (() => void) => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
};
const gc = collectGarbage();

/** Calls in one timing window at most, for a call that takes next to nothing. */
const MAX_CALLS = 100_000;

/** Sinks every result, so no call can be optimised away. */
const sink: { result?: unknown } = {};

/**
 * A timing window of `subject` on `input`: the CPU time of one call, over as many calls as make the window `minMs`
 * long (found by untimed windows after one untimed call: compilation, flattening the input; a slow call needs no
 * more than one). CPU time, and windows of the same length for both sizes of the last step: on a shared machine a
 * long window is interrupted more often than a short one, which would tax the larger size alone.
 */
const windowOf = (subject: Subject, input: unknown, minMs: number): (() => number) => {
  const window = (calls: number) => {
    const started = process.cpuUsage();
    for (let call = 0; call < calls; call++) sink.result = subject.run(input);
    const { user, system } = process.cpuUsage(started);
    return (user + system) / 1000;
  };
  sink.result = subject.run(input);
  let calls = 1;
  for (let elapsed = window(calls); elapsed < minMs && calls < MAX_CALLS; elapsed = window(calls))
    calls = Math.min(MAX_CALLS, Math.ceil((calls * minMs * 1.2) / Math.max(elapsed, 0.001)));
  return () => window(calls) / calls;
};

/**
 * The best time of one call at each of two sizes over `reps` windows each, taken in turns (smaller, larger, smaller…):
 * a spell of load, a neighbour filling the caches or a slower clock falls on both sizes alike, where timing one size
 * after the other put it on whichever was being timed.
 */
const bestOfPair = (windows: readonly [() => number, () => number], reps: number): [number, number] => {
  gc();
  const best: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  for (let rep = 0; rep < reps; rep++)
    for (const at of [0, 1] as const) best[at] = Math.min(best[at], windows[at]());
  return best;
};

export interface Growth {
  subject: string;
  payload: string;
  /** The sizes timed: a step over MAX_STEP_RATIO stops the ladder, so a quadratic case never reaches a megabyte. */
  sizes: number[];
  /** The best time of one call at each size, as the larger size of its step (the first: as the smaller of its one). */
  ms: number[];
  /** Each step's larger size's time over its smaller size's, the two timed in turns (the smaller one again). */
  ratios: number[];
}

/** Times `subject` on `payload` at each of SIZES up to `largest`, stopping after the first step that grows over MAX_STEP_RATIO. */
export const growthOf = (
  subject: Subject,
  payload: string,
  { reps = 3, minMs = 4, largest = LARGEST_SIZE }: { reps?: number; minMs?: number; largest?: number } = {},
): Growth => {
  const make = PAYLOADS[payload];
  if (!make) throw new Error(`no payload named ${payload}`);
  const growth: Growth = { subject: subject.name, payload, sizes: [], ms: [], ratios: [] };
  const inputOf = (size: number) => subject.input(make(size, subject.field));
  // The last step's two sizes are timed in windows long enough to be interrupted alike: a window shorter than a time
  // slice often runs uninterrupted, with warm caches, and would favour the smaller size.
  const windowMs = (size: number) => (size >= SIZES[2] ? minMs * 5 : minMs);
  const [first, ...larger] = SIZES.filter((size) => size <= largest);
  if (first === undefined) return growth;
  let previous = { size: first, input: inputOf(first) };
  for (const size of larger) {
    const input = inputOf(size);
    const [base, ms] = bestOfPair(
      [windowOf(subject, previous.input, windowMs(previous.size)), windowOf(subject, input, windowMs(size))],
      reps,
    );
    if (growth.sizes.length === 0) {
      growth.sizes.push(previous.size);
      growth.ms.push(base);
    }
    previous = { size, input };
    growth.sizes.push(size);
    growth.ms.push(ms);
    // A step up from a few microseconds is noise, not growth: the base is floored at MIN_BASE_MS.
    const ratio = ms / Math.max(base, MIN_BASE_MS);
    growth.ratios.push(ratio);
    if (ratio > MAX_STEP_RATIO) break;
  }
  sink.result = undefined;
  return growth;
};

/** Whether a ladder grows faster than linear somewhere (a ladder cut short ends on such a step). */
export const isSteep = (growth: Growth): boolean => growth.ratios.some((ratio) => ratio > MAX_STEP_RATIO);

/** Tries at most for a ladder: the test and the benchmark time a steep one again, up to this many times in all. */
export const ATTEMPTS = 3;

/**
 * A ladder timed again while it looks steep, up to ATTEMPTS in all: on a shared machine one timing can be taxed by a
 * neighbour or a cache; a cost that really grows faster than linear is steep in every attempt.
 */
export const growthOn = (
  subject: Subject,
  payload: string,
  options?: Parameters<typeof growthOf>[2],
): Growth => {
  let growth = growthOf(subject, payload, options);
  for (let attempt = 1; attempt < ATTEMPTS && isSteep(growth); attempt++)
    growth = growthOf(subject, payload, options);
  return growth;
};
