// Owns reading GET /api/spam-check/compare's query (an addition): the two check ids, `a` and `b`, once each.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { fixedError } from '../domain/errors';

export class CompareQueryError extends fixedError(400, 'Query parameters a and b are required, once each') {}

/** Two ids and their names fit well within it; past it the query is refused before it is parsed. */
const MAX_QUERY_LENGTH = 256;

export const compareIdsOf = (
  event: Pick<APIGatewayProxyEventV2, 'rawQueryString'>,
): { a: string; b: string } => {
  const query = event.rawQueryString ?? '';
  if (query.length > MAX_QUERY_LENGTH) throw new CompareQueryError();
  const params = new URLSearchParams(query);
  const a = params.getAll('a');
  const b = params.getAll('b');
  if (a.length !== 1 || b.length !== 1 || [...params.keys()].length !== 2) throw new CompareQueryError();
  return { a: a[0] ?? '', b: b[0] ?? '' };
};
