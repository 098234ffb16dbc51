// Owns reading GET /api/spam-check/compare's query (an addition): `a` and `b`, once each, each a comma-separated list
// of 1 to 50 check ids (a series), pooled per seed by the comparison.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { fixedError } from '../domain/errors';
import { MAX_SERIES_CHECKS } from '../domain/reportArchive';

export class CompareQueryError extends fixedError(
  400,
  'Query parameters a and b are required, once each: each a comma-separated list of 1 to 50 check ids',
) {}

/** Two full lists of ids and their names fit well within it; past it the query is refused before it is parsed. */
const MAX_QUERY_LENGTH = 2 * MAX_SERIES_CHECKS * 24 + 16;

const listOf = (value: string): string[] => {
  const ids = value.split(',', MAX_SERIES_CHECKS + 1);
  if (ids.length > MAX_SERIES_CHECKS || ids.some((id) => id === '')) throw new CompareQueryError();
  return ids;
};

export const compareIdsOf = (
  event: Pick<APIGatewayProxyEventV2, 'rawQueryString'>,
): { a: string[]; b: string[] } => {
  const query = event.rawQueryString ?? '';
  if (query.length > MAX_QUERY_LENGTH) throw new CompareQueryError();
  const params = new URLSearchParams(query);
  const a = params.getAll('a');
  const b = params.getAll('b');
  if (a.length !== 1 || b.length !== 1 || [...params.keys()].length !== 2) throw new CompareQueryError();
  return { a: listOf(a[0] ?? ''), b: listOf(b[0] ?? '') };
};
