// Owns reading GET /api/spam-check/history's query (an addition): `limit` (1 to 100, default 20) and `cursor` (the
// `next` of the page before) and `monitor` (a monitor's name: its runs only), each at most once, nothing else.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { fixedError } from '../domain/errors';
import { DEFAULT_HISTORY_PAGE, MAX_HISTORY_PAGE } from '../domain/reportArchive';

export class HistoryQueryError extends fixedError(
  400,
  'Query parameters: limit (1 to 100), cursor (the next of the page before) and monitor (a monitor name), each at most once',
) {}

const MAX_QUERY_LENGTH = 128;
const LIMIT_PATTERN = /^[1-9]\d{0,2}$/;
/** A monitor's name, as monitor.ts allows it; anchored, one character class: nothing can backtrack. */
const MONITOR_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const NAMES = new Set(['limit', 'cursor', 'monitor']);

export const historyPageOf = (
  event: Pick<APIGatewayProxyEventV2, 'rawQueryString'>,
): { limit: number; cursor?: string; monitor?: string } => {
  const query = event.rawQueryString ?? '';
  if (query.length > MAX_QUERY_LENGTH) throw new HistoryQueryError();
  const params = new URLSearchParams(query);
  const names = [...params.keys()];
  if (names.some((name) => !NAMES.has(name))) throw new HistoryQueryError();
  if ([...NAMES].some((name) => params.getAll(name).length > 1)) throw new HistoryQueryError();
  const monitor = params.get('monitor');
  if (monitor !== null && !MONITOR_PATTERN.test(monitor)) throw new HistoryQueryError();
  const limitText = params.get('limit');
  if (limitText !== null && !LIMIT_PATTERN.test(limitText)) throw new HistoryQueryError();
  const limit = limitText === null ? DEFAULT_HISTORY_PAGE : Number(limitText);
  if (limit > MAX_HISTORY_PAGE) throw new HistoryQueryError();
  const cursor = params.get('cursor');
  return {
    limit,
    ...(cursor === null ? {} : { cursor }),
    ...(monitor === null ? {} : { monitor }),
  };
};
