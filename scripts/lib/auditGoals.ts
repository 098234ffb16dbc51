// Owns the sender audit's goals in BENCHMARKS.md: detection unchanged with it on (side by side with it off, in one
// run), the audit in the report soon after the first copy, one bounded source fetch per check, and what it costs.
import { BENCH, costArithmetic, type Goal, get, ms, num } from './goalReading';

const sideBySide = (r: Record<string, unknown>) =>
  `on p95 ${ms(num(r, 'detection.on.p95Ms'))} (p50 ${ms(num(r, 'detection.on.p50Ms'))}) vs off p95 ${ms(num(r, 'detection.off.p95Ms'))} (p50 ${ms(num(r, 'detection.off.p50Ms'))}), ×${(num(r, 'detection.on.p95Ms') / num(r, 'detection.off.p95Ms')).toFixed(3)}; ${num(r, 'detection.on.samples')} and ${num(r, 'detection.off.samples')} copies, runs ${String(get(r, 'detection.order'))}${perRun(r)}`;

/** Each run's own p95 by condition, in run order: the spread the pooled figures carry (older results lack it). */
const perRun = (r: Record<string, unknown>) => {
  const runs = get(r, 'detection.runs');
  if (!Array.isArray(runs)) return '';
  const of = (audit: string) =>
    runs
      .filter((run: { audit?: string }) => run.audit === audit)
      .map((run: { p95Ms?: number }) => ms(Number(run.p95Ms)))
      .join(', ');
  return `; each run's p95: off ${of('off')}; on ${of('on')}`;
};

export const AUDIT_GOALS: Goal[] = [
  {
    section: 'audit',
    goal: 'Detection with the sender audit on: LMTP delivery to GET showing the copy, p95 within 5 % of the same run with it off',
    command: `${BENCH} audit`,
    read: (r) => ({
      measured: sideBySide(r),
      pass:
        // Within 5 % either way: an "on" far below "off" means a run measured something else, not a free audit.
        Math.abs(num(r, 'detection.on.p95Ms') - num(r, 'detection.off.p95Ms')) <=
          num(r, 'detection.off.p95Ms') * 0.05 &&
        num(r, 'detection.on.samples') > 0 &&
        num(r, 'detection.on.samples') === num(r, 'detection.off.samples'),
    }),
  },
  {
    section: 'audit',
    goal: "The sender audit in the check's report within 3 s of the first copy, p95 (from the first copy's LMTP delivery to GET .../report showing it)",
    command: `${BENCH} audit`,
    read: (r) => ({
      measured: `p95 ${ms(num(r, 'reportReady.p95Ms'))}, p50 ${ms(num(r, 'reportReady.p50Ms'))}, max ${ms(num(r, 'reportReady.maxMs'))} over ${num(r, 'reportReady.samples')} checks, ${num(r, 'reportReady.notReady')} not shown within 30 s; inside the service, first copy recorded to audit stored p95 ${ms(num(r, 'recordedToStored.p95Ms'))}`,
      pass:
        num(r, 'reportReady.p95Ms') <= 3000 &&
        num(r, 'reportReady.notReady') === 0 &&
        num(r, 'reportReady.samples') === num(r, 'checks'),
    }),
  },
  {
    section: 'audit',
    goal: "The sender audit costs one source fetch per check, at most the fetch's cap in bytes",
    command: `${BENCH} audit`,
    read: (r) => ({
      measured: `${num(r, 'fetches.checksWithOne')} of ${num(r, 'fetches.checks')} checks fetched once (min ${num(r, 'fetches.perCheckMin')}, max ${num(r, 'fetches.perCheckMax')}); at most ${num(r, 'fetches.bytesMax')} bytes against a cap of ${num(r, 'fetches.capBytes')}, a ${num(r, 'fetches.largeMessageBytes')}-byte message read as ${num(r, 'fetches.largeFetchedBytes')}; ${num(r, 'fetches.headersOnly')} audited from headers alone`,
      pass:
        num(r, 'fetches.perCheckMin') === 1 &&
        num(r, 'fetches.perCheckMax') === 1 &&
        num(r, 'fetches.bytesMax') <= num(r, 'fetches.capBytes') &&
        num(r, 'fetches.largeFetchedBytes') <= num(r, 'fetches.capBytes') &&
        num(r, 'fetches.headersOnly') === 0,
    }),
  },
  {
    section: 'audit',
    goal: 'Variable cost of a check at list prices with the sender audit on and off (20 accounts), and what only the scan Lambda adds (reported)',
    command: `${BENCH} audit`,
    read: (r) => ({
      measured: `on: ${costArithmetic(get(r, 'cost.on.perCheck'), get(r, 'cost.prices'))}. Off: $${num(r, 'cost.off.perCheck.totalDollars')}. Lambda only: ${num(r, 'cost.lambdaOnly.checkReadUnits')} RRU reading the check and ${num(r, 'cost.lambdaOnly.emfBytes')} bytes of EMF a check here (${num(r, 'cost.lambdaOnly.emfBytesAllPresets')} with seeds at every preset), $${num(r, 'cost.lambdaOnly.dollarsAllPresets')} at most; ${num(r, 'cost.checks')} checks per condition`,
      pass: undefined,
    }),
  },
];
