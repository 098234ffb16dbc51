// Owns the seed marks a check keeps from its start: the scope's latest calibration as it stood then (suspect seeds,
// each provider's control, the providers flagged), so its report reads the same whenever it is read again.
import type { ControlCounts, ControlRun } from './controlRun';
import { isStale } from './seedHealth';

/** `current`: a calibration recent enough; `stale`: only one older than its staleness; `none`: none at all. */
export type MarksState = 'current' | 'stale' | 'none';

export interface SeedMarks {
  /** When the marks were taken: the check's start, ms since the epoch. */
  takenAt: number;
  state: MarksState;
  /** The calibration they come from; absent when the scope had none. */
  run?: { checkId: string; at: number; everyMs: number } | undefined;
  /** Seeds of the check suspect then. */
  suspect: string[];
  /** Seeds of the check the calibration told nothing about (not reached, not readable, or all of them when stale). */
  unknown: string[];
  /** The control per provider, and the providers flagged; empty unless current. */
  byProvider: Record<string, ControlCounts>;
  providerAstray: string[];
}

const unmarked = (now: number, emails: readonly string[], state: MarksState): SeedMarks => ({
  takenAt: now,
  state,
  suspect: [],
  unknown: [...emails],
  byProvider: {},
  providerAstray: [],
});

export const seedMarksOf = (
  run: ControlRun | undefined,
  emails: readonly string[],
  now: number,
): SeedMarks => {
  if (!run) return unmarked(now, emails, 'none');
  const source = { checkId: run.checkId, at: run.at, everyMs: run.everyMs };
  if (isStale(run.at, run.everyMs, now)) return { ...unmarked(now, emails, 'stale'), run: source };
  const suspect = new Set(run.suspect);
  const reached = new Set(run.seeds);
  const unreachable = new Set(run.unreachable);
  return {
    takenAt: now,
    state: 'current',
    run: source,
    suspect: emails.filter((email) => suspect.has(email)),
    unknown: emails.filter((email) => !suspect.has(email) && (!reached.has(email) || unreachable.has(email))),
    byProvider: run.byProvider,
    providerAstray: run.providerAstray,
  };
};
