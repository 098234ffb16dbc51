// Owns archiving ended checks' reports as the scanner settles them (reportArchive.ts): the report as it reads at
// settling, with the seed marks stored with the check at its start, kept REPORT_RETENTION_DAYS from the start.

import { seedContextOf } from '../calibration';
import type { CheckStore, SeedHistoryStore } from '../domain/ports';
import type { ReportArchive } from '../domain/reportArchive';
import { reportOf } from './getReport';

export interface ArchiveDeps {
  checks: Pick<CheckStore, 'get'>;
  archive: Pick<ReportArchive, 'put'>;
  seeds?: Pick<SeedHistoryStore, 'latestRun'> | undefined;
  /** How long a report is kept after its check started; 0 keeps none. */
  retentionMs: number;
}

/** Archives each of these settled checks still in the store; one that is gone is skipped. */
export const archiveReports = async (
  deps: ArchiveDeps,
  checkIds: readonly string[],
  now: number,
): Promise<void> => {
  if (deps.retentionMs <= 0) return;
  for (const checkId of checkIds) {
    const check = await deps.checks.get(checkId);
    if (!check) continue;
    // The suspect marks stored with the check at its start, as the report reads them (getReport.ts).
    const report = reportOf(check, now, deps.seeds || check.seedMarks ? seedContextOf(check.seedMarks) : {});
    await deps.archive.put({
      scope: check.scope,
      report,
      expiresAt: check.createdAt + deps.retentionMs,
      ...(check.monitor ? { monitor: check.monitor } : {}),
    });
  }
};
