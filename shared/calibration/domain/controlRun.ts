// Owns one calibration's outcome in a scope: where the control landed per provider, which providers lost it at most
// of their seeds (the provider or the control sender is flagged then, not the seeds), and the interval it ran under.
import { DEFAULT_EVERY_MS, outcomeOf, type SeedCalibration } from './seedHealth';

/** One provider's share of one calibration: placements, and the outcomes they come to (seedHealth.ts). */
export interface ControlCounts {
  total: number;
  inbox: number;
  spam: number;
  other: number;
  missing: number;
  /** Not in an inbox category, from a seed that could be read: spam, other and missing less unreachable. */
  astray: number;
  /** Missing from a seed whose logins were failing: says nothing about the seed or the provider. */
  unreachable: number;
}

/** A finished calibration of one scope. */
export interface ControlRun {
  scope: string;
  checkId: string;
  at: number;
  /** The calibration interval this run was judged under (runIntervalOf). */
  everyMs: number;
  byProvider: Record<string, ControlCounts>;
  /** Providers where most reachable seeds lost the control: flagged, and their seeds stay counted. */
  providerAstray: string[];
  /** Every seed the run reached, and those of them it could not read. */
  seeds: string[];
  unreachable: string[];
  /** Seeds suspect once this calibration was recorded. */
  suspect: string[];
}

const EMPTY: ControlCounts = { total: 0, inbox: 0, spam: 0, other: 0, missing: 0, astray: 0, unreachable: 0 };

export const controlCountsOf = (
  entries: readonly Pick<SeedCalibration, 'provider' | 'placement' | 'category' | 'loginFailures'>[],
): Record<string, ControlCounts> => {
  const byProvider: Record<string, ControlCounts> = {};
  for (const entry of entries) {
    byProvider[entry.provider] ??= { ...EMPTY };
    const counts = byProvider[entry.provider] as ControlCounts;
    counts.total++;
    counts[entry.placement]++;
    const outcome = outcomeOf(entry);
    if (outcome !== 'inbox') counts[outcome]++;
  }
  return byProvider;
};

/**
 * Most (more than half) of the seeds the calibration could read at the provider lost the control. One seed alone
 * cannot be told from its provider, so its loss flags the provider.
 */
export const isProviderAstray = (counts: ControlCounts): boolean => {
  const reachable = counts.total - counts.unreachable;
  return reachable > 0 && 2 * counts.astray > reachable;
};

export const providersAstrayOf = (byProvider: Readonly<Record<string, ControlCounts>>): string[] =>
  Object.entries(byProvider)
    .filter(([, counts]) => isProviderAstray(counts))
    .map(([provider]) => provider)
    .sort();

/** Runs closer than the shortest schedule are reruns: the interval never reads shorter. */
const MIN_EVERY_MS = 15 * 60_000;

/**
 * The interval a run is judged under: the schedule's where one runs it (npm start's CALIBRATION_EVERY), else the
 * time since the scope's previous calibration (on AWS, the schedule's own spacing), else DEFAULT_EVERY_MS.
 */
export const runIntervalOf = (at: number, previousAt: number | undefined, scheduledMs?: number): number => {
  if (scheduledMs !== undefined) return scheduledMs;
  if (previousAt === undefined || previousAt >= at) return DEFAULT_EVERY_MS;
  return Math.max(MIN_EVERY_MS, at - previousAt);
};
