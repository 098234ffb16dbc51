// Owns comparing two series of the caller's checks (GET /api/spam-check/compare, an addition): each id read from the
// report archive where it is kept, else live as the report reads it (each live one counts against the key's read
// limit, the archive's one batch once); any id unknown, expired or of another scope is the same 404.
import type { Principal } from '../domain/apiKey';
import { isCheckId } from '../domain/checkId';
import { CheckNotFoundError, TooManyReadsError } from '../domain/errors';
import { compareSeries, type PlacementComparison } from '../domain/placementComparison';
import type { PlacementReport } from '../domain/placementReport';
import type { ReportArchive } from '../domain/reportArchive';
import { getReport } from './getReport';

export type CompareDeps = Parameters<typeof getReport>[0] & {
  archive?: Pick<ReportArchive, 'get'> | undefined;
};

const archived = async (deps: CompareDeps, principal: Principal, ids: readonly string[]) => {
  if (!deps.archive || ids.length === 0) return new Map<string, PlacementReport>();
  const retryAfter = deps.readLimiter?.take(principal.keyId, deps.clock.now());
  if (retryAfter !== undefined) throw new TooManyReadsError(retryAfter);
  return deps.archive.get(principal.scope, ids, deps.clock.now());
};

export const compareChecks = async (
  deps: CompareDeps,
  principal: Principal,
  a: readonly string[],
  b: readonly string[],
): Promise<PlacementComparison> => {
  const ids = [...new Set([...a, ...b])];
  if (!ids.every(isCheckId)) throw new CheckNotFoundError();
  const reports = await archived(deps, principal, ids);
  // One after the other, so a refusal of one costs no further read.
  for (const id of ids) if (!reports.has(id)) reports.set(id, await getReport(deps, principal, id));
  const side = (list: readonly string[]) =>
    [...new Set(list)].map((id) => reports.get(id) as PlacementReport);
  return compareSeries(side(a), side(b));
};
