// Owns a monitor's alarm judgement, pure: per provider, the pooled inbox rate of the last N runs against the N runs
// before them (the baseline), by the one-sided exact test of the comparison's statistics module; and against the
// control in the same window, so a drop the control shares is read as the seeds' (or provider's), not the message's.
import { powerLineOf } from '../domain/comparisonPower';
import type { RateInterval } from '../domain/placementReport';
import { fisherLess, rateOf } from '../domain/statistics';
import type { MonitorRun } from './monitor';

/** A calibration's control run, per provider: what the control did at the same seeds. */
export interface ControlWindowRun {
  checkId: string;
  at: number;
  byProvider: Record<string, { inbox: number; total: number }>;
}

export type AlarmState = 'waiting' | 'ok' | 'drop' | 'message' | 'seeds';

export interface ProviderJudgement {
  provider: string;
  state: AlarmState;
  /** Runs the window needs, and how many runs (window and baseline together) the provider has. */
  windowRuns: number;
  runsHad: number;
  window: RateInterval | null;
  baseline: RateInterval | null;
  control: RateInterval | null;
  /** One-sided exact p of window < baseline, and of window < control; null where not tested. */
  pDrop: number | null;
  pControl: number | null;
  /** The window's runs, newest first: the checks to open. */
  runIds: string[];
  text: string;
}

const ALPHA = 0.05;
/** The rate assumed before a baseline exists: a good sender's, as the comparison's example (0.9 → 0.7). */
const ASSUMED_BASELINE = 0.9;

/** Runs for 80 % power to see a 20-point drop with this many seeds per provider a run (at least 1). */
export const windowRunsFor = (seedsPerRun: number, baselineRate = ASSUMED_BASELINE): number => {
  const seeds = Math.max(1, seedsPerRun);
  const line = powerLineOf(rateOf(Math.round(baselineRate * 100), 100), seeds);
  return Math.max(1, line?.checks_needed ?? 1);
};

const pooled = (runs: readonly MonitorRun[], provider: string): RateInterval => {
  let inbox = 0;
  let total = 0;
  for (const run of runs) {
    inbox += run.byProvider[provider]?.inbox ?? 0;
    total += run.byProvider[provider]?.total ?? 0;
  }
  return rateOf(inbox, total);
};

const fewer = (a: RateInterval, b: RateInterval): number | null =>
  a.of > 0 && b.of > 0 ? fisherLess(a.count, a.of - a.count, b.count, b.of - b.count) : null;

const percent = (share: number | null) => (share === null ? '-' : `${Math.round(share * 100)} %`);
const rateText = (rate: RateInterval | null): string =>
  rate === null || rate.of === 0
    ? 'nothing counted'
    : `${rate.count} of ${rate.of} (${percent(rate.rate)}, 95 % CI ${percent(rate.low)}–${percent(rate.high)})`;
const pText = (p: number | null) => (p === null ? 'not tested' : p < 0.0001 ? '< 0.0001' : p.toFixed(4));

const STATE_WORDS: Record<AlarmState, string> = {
  waiting: 'too few runs to judge',
  ok: 'no drop beyond chance',
  drop: 'ALARM: inbox rate dropped below its baseline',
  message:
    'ALARM: the control landed in the inbox here while the monitor did not (the message, not the seeds)',
  seeds: 'dropped, but the control dropped too: the seeds or the provider, not the message',
};

const controlRate = (controls: readonly ControlWindowRun[], provider: string, since: number) => {
  let inbox = 0;
  let total = 0;
  for (const run of controls)
    if (run.at >= since) {
      inbox += run.byProvider[provider]?.inbox ?? 0;
      total += run.byProvider[provider]?.total ?? 0;
    }
  return total > 0 ? rateOf(inbox, total) : null;
};

const stateOf = (pDrop: number | null, pControl: number | null, controlLow: boolean): AlarmState => {
  if (pControl !== null && pControl < ALPHA) return 'message';
  if (pDrop !== null && pDrop < ALPHA) return controlLow ? 'seeds' : 'drop';
  return 'ok';
};

/** One provider's judgement over its runs, newest first. */
const judgeProvider = (
  monitor: string,
  provider: string,
  runs: readonly MonitorRun[],
  controls: readonly ControlWindowRun[],
  windowRuns: number,
): ProviderJudgement => {
  const windowed = runs.slice(0, windowRuns);
  const before = runs.slice(windowRuns, 2 * windowRuns);
  const runIds = windowed.map((run) => run.checkId);
  const window = pooled(windowed, provider);
  const base = { provider, windowRuns, runsHad: runs.length, runIds, window };
  if (windowed.length < windowRuns) {
    const text = `monitor ${monitor}, ${provider}: ${STATE_WORDS.waiting} (${runs.length} of ${windowRuns} runs); inbox ${rateText(window)}`;
    return { ...base, state: 'waiting', baseline: null, control: null, pDrop: null, pControl: null, text };
  }
  const baseline = before.length >= windowRuns ? pooled(before, provider) : null;
  const oldest = Math.min(...windowed.map((run) => run.at));
  const control = controlRate(controls, provider, oldest);
  const pDrop = baseline ? fewer(window, baseline) : null;
  const pControl = control ? fewer(window, control) : null;
  const controlLow = control !== null && baseline?.low != null && (control.rate ?? 0) < baseline.low;
  const state = stateOf(pDrop, pControl, controlLow);
  const text = [
    `monitor ${monitor}, ${provider}: ${STATE_WORDS[state]}`,
    `inbox ${rateText(window)} over the last ${windowed.length} runs`,
    `baseline ${baseline ? rateText(baseline) : `not yet (${runs.length} of ${2 * windowRuns} runs)`}`,
    `one-sided exact p ${pText(pDrop)}`,
    `control ${control ? `${rateText(control)}, p ${pText(pControl)}` : 'no run in the window'}`,
    `runs ${runIds.join(', ')}`,
  ].join('; ');
  return { ...base, state, baseline, control, pDrop, pControl, text };
};

/** Every provider the monitor's runs reached, judged; runs and controls in any order. */
export const judgeMonitor = (input: {
  monitor: string;
  runs: readonly MonitorRun[];
  controls?: readonly ControlWindowRun[];
  windowRuns?: number | undefined;
}): ProviderJudgement[] => {
  const runs = [...input.runs].sort((a, b) => b.at - a.at);
  const providers = [...new Set(runs.flatMap((run) => Object.keys(run.byProvider)))].sort();
  return providers.map((provider) => {
    const reached = runs.filter((run) => (run.byProvider[provider]?.total ?? 0) > 0);
    const seeds = Math.max(...reached.map((run) => run.byProvider[provider]?.total ?? 0), 1);
    const windowRuns = input.windowRuns ?? windowRunsFor(seeds);
    return judgeProvider(input.monitor, provider, reached, input.controls ?? [], windowRuns);
  });
};

export const isAlarm = (judgement: ProviderJudgement): boolean =>
  judgement.state === 'drop' || judgement.state === 'message';
