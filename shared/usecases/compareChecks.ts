// Owns comparing two of the caller's checks (GET /api/spam-check/compare, an addition): each read as the report reads
// it, so each counts against the key's read limit and either one unknown, expired or of another scope is the same 404.
import type { Principal } from '../domain/apiKey';
import { compareReports, type PlacementComparison } from '../domain/placementComparison';
import { getReport } from './getReport';

export const compareChecks = async (
  deps: Parameters<typeof getReport>[0],
  principal: Principal,
  a: string,
  b: string,
): Promise<PlacementComparison> => {
  // One after the other, so a refusal of the first costs no second read.
  const first = await getReport(deps, principal, a);
  const second = await getReport(deps, principal, b);
  return compareReports(first, second);
};
