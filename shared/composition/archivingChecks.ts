// Owns settling with archiving: each check the scanner settles has its report kept (REPORT_RETENTION_DAYS) by the
// same call, so every way of running a scanner archives alike; a failure is logged, never in the way of settling.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoCheckStore } from '../adapters/dynamo/DynamoCheckStore';
import { DynamoReportArchive } from '../adapters/dynamo/DynamoReportArchive';
import { DynamoSeedHistory } from '../adapters/dynamo/DynamoSeedHistory';
import { DynamoShardLayout } from '../adapters/dynamo/DynamoShardLayout';
import { DAY_MS } from '../domain/reportArchive';
import type { Logger } from '../log';
import type { ActiveChecks } from '../scanner/scannerPorts';
import { type ArchiveDeps, archiveReports } from '../usecases/archiveReports';

/** The archive's parts over the scanner's table: the check, the scope's latest control run, the archive itself. */
export const archiveDepsOf = (
  client: DynamoDBDocumentClient,
  tableName: string,
  retentionDays: number,
): ArchiveDeps => ({
  checks: new DynamoCheckStore(client, tableName, new DynamoShardLayout(client, tableName)),
  archive: new DynamoReportArchive(client, tableName),
  seeds: new DynamoSeedHistory(client, tableName),
  retentionMs: retentionDays * DAY_MS,
});

/** `checks` whose settle also archives what it settled (`checks` itself when the retention is 0). */
export const archivingSettle = <T extends Pick<ActiveChecks, 'settle'>>(
  checks: T,
  deps: ArchiveDeps,
  log: Logger,
): T => {
  if (deps.retentionMs <= 0) return checks;
  // Everything else of `checks` reached through the prototype, so the scanner's other calls reach the store alone.
  const archiving = Object.create(checks) as T;
  archiving.settle = async (now) => {
    const settled = await checks.settle(now);
    const ids = settled.map((check) => check.checkId);
    await archiveReports(deps, ids, now).catch((error: unknown) =>
      log.warn('reports not archived', { check_ids: ids, error }),
    );
    return settled;
  };
  return archiving;
};
