// Owns GET /api/spam-check/history (an addition): a page of the caller's scope's archived checks, newest first.
// Counted against the key's read limit as one read; without an archive (REPORT_RETENTION_DAYS=0) the list is empty.
import type { Principal } from '../domain/apiKey';
import type { Clock } from '../domain/clock';
import { TooManyReadsError } from '../domain/errors';
import type { ReadLimiter } from '../domain/readLimits';
import type { HistoryPage, ReportArchive } from '../domain/reportArchive';

export interface HistoryDeps {
  archive?: Pick<ReportArchive, 'list'> | undefined;
  clock: Clock;
  readLimiter?: ReadLimiter | undefined;
}

export const listHistory = async (
  deps: HistoryDeps,
  principal: Principal,
  page: { limit: number; cursor?: string | undefined; monitor?: string | undefined },
): Promise<HistoryPage> => {
  const retryAfter = deps.readLimiter?.take(principal.keyId, deps.clock.now());
  if (retryAfter !== undefined) throw new TooManyReadsError(retryAfter);
  if (!deps.archive) return { checks: [], next: null };
  return deps.archive.list(principal.scope, deps.clock.now(), page.limit, page.cursor, page.monitor);
};
