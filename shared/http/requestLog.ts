// Owns what every API request adds to the log: its Lambda context on each line (request id, cold start), and the
// check it concerns under one key, check_id, as the scanner's lines have it: `check started` when start creates
// one, `check read` (debug) when get or the report answers about one.
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isCheckId } from '../domain/checkId';
import { type Logger, lambdaContext } from '../log';

type Request = { event: APIGatewayProxyEventV2; response: APIGatewayProxyStructuredResultV2 | null };

/** Only a well-formed id is logged: the path segment is the caller's text. */
const checkIdIn = (value: unknown): string | undefined =>
  typeof value === 'string' && isCheckId(value) ? value : undefined;

/** The check start created, read back from its own small JSON answer. */
const startedCheck = (response: Request['response']): string | undefined => {
  if (response?.statusCode !== 200 || typeof response.body !== 'string') return undefined;
  try {
    return checkIdIn((JSON.parse(response.body) as { check_id?: unknown }).check_id);
  } catch {
    return undefined;
  }
};

const checkLines = (
  log: Logger,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => {
  const line = ({ event, response }: Request): void => {
    const route = event.routeKey;
    const status = response?.statusCode;
    const started = event.requestContext?.http?.method === 'POST' ? startedCheck(response) : undefined;
    if (started) {
      log.info('check started', { check_id: started, route, status });
      return;
    }
    const read = checkIdIn(event.pathParameters?.check_id);
    if (read) log.debug('check read', { check_id: read, route, status });
  };
  // After the error mapping has answered too, so a refused read is logged with its status.
  return { after: async (request) => line(request), onError: async (request) => line(request) };
};

/** The API's first middlewares: the context first, so the lines of every later one carry it. */
export const requestLog = (log: Logger) => [...lambdaContext(log), checkLines(log)];
