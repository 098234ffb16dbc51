// Owns what the seeds' record adds to a placement report: the marks kept with the check when it started (suspect and
// unknown seeds, each provider's control), never the calibrations since, so a report reads the same every time.
import type { ControlPlacement, ReportSeedMarks } from '../../domain/placementReport';
import type { SeedMarks } from '../domain/seedMarks';

/** What the seeds' own record adds to a report. */
export interface SeedContext {
  suspect?: ReadonlySet<string>;
  unknown?: ReadonlySet<string>;
  controls?: Readonly<Record<string, ControlPlacement | null>>;
  marks?: ReportSeedMarks;
}

/** A check that kept no marks (started before they were kept): every seed counted, no control, and it says so. */
const NO_MARKS: SeedContext = {
  suspect: new Set(),
  controls: {},
  marks: { state: 'none', taken_at: null, calibration: null },
};

export const seedContextOf = (marks: SeedMarks | undefined): SeedContext => {
  if (!marks) return NO_MARKS;
  const run = marks.run;
  const at = run ? new Date(run.at).toISOString() : '';
  const controls: Record<string, ControlPlacement> = {};
  for (const [provider, counts] of Object.entries(marks.byProvider))
    if (run)
      controls[provider] = {
        check_id: run.checkId,
        at,
        total: counts.total,
        inbox: counts.inbox,
        spam: counts.spam,
        missing: counts.missing,
        other: counts.other,
        astray: counts.astray,
        unreachable: counts.unreachable,
        provider_astray: marks.providerAstray.includes(provider),
      };
  return {
    suspect: new Set(marks.suspect),
    unknown: new Set(marks.unknown),
    controls,
    marks: {
      state: marks.state,
      taken_at: new Date(marks.takenAt).toISOString(),
      calibration: run ? { check_id: run.checkId, at } : null,
    },
  };
};
