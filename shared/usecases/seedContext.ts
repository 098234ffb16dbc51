// Owns what the seeds' record adds to a placement report: the scope's latest control run, read once per report, as
// the suspect seeds and each provider's control placement.
import type { ControlPlacement } from '../domain/placementReport';
import type { ControlRun } from '../domain/seedHealth';

/** No run kept yet: every seed is counted, and every provider shows a null control. */
export const seedContextOf = (
  run: ControlRun | undefined,
): { suspect: ReadonlySet<string>; controls: Record<string, ControlPlacement> } => {
  if (!run) return { suspect: new Set(), controls: {} };
  const at = new Date(run.at).toISOString();
  const controls: Record<string, ControlPlacement> = {};
  for (const [provider, counts] of Object.entries(run.byProvider))
    controls[provider] = {
      check_id: run.checkId,
      at,
      total: counts.total,
      inbox: counts.inbox,
      spam: counts.spam,
      missing: counts.missing,
    };
  return { suspect: new Set(run.suspect), controls };
};
