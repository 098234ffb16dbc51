// Owns serving Lambda handlers over plain Node HTTP: each request becomes an API Gateway HTTP API (v2) event.
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { DomainError } from '../domain/errors';
import { domainErrorResponse } from '../http/errorMiddleware';
import { HeadersTooLargeError, MalformedRequestError, PayloadTooLargeError } from '../http/requestErrors';
import { errorResponse } from '../http/responses';
import { findRoute, type RouteFunction, type RouteMatch, routeKeyOf } from '../http/routes';
import type { Logger } from '../log';

export type LambdaHttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;
export type HandlerTable = Record<RouteFunction | 'fallback', LambdaHttpHandler>;
/** Throws the DomainError a request to `target` is sure to get, known without building its event (or returns). */
export type RequestScreen = (target: RouteFunction, authorization: string | undefined) => void;

// API Gateway refuses payloads over 10 MB; we take far less because no route reads a body.
const MAX_BODY_BYTES = 1024 * 1024;
const DEADLINE_MS = 30_000;

const headersOf = (req: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    const name = (req.rawHeaders[index] ?? '').toLowerCase();
    const value = req.rawHeaders[index + 1] ?? '';
    // API Gateway joins repeated headers with a comma, and so do we.
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return headers;
};

/** One header as the event carries it (headersOf's joining of repeats), without building the rest. */
const headerOf = (req: IncomingMessage, name: string): string | undefined => {
  let joined: string | undefined;
  for (let index = 0; index < req.rawHeaders.length; index += 2) {
    if ((req.rawHeaders[index] ?? '').toLowerCase() !== name) continue;
    const value = req.rawHeaders[index + 1] ?? '';
    joined = joined === undefined ? value : `${joined},${value}`;
  }
  return joined;
};

const decode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

const readBody = async (req: IncomingMessage): Promise<Buffer | 'too-large'> => {
  const chunks: Buffer[] = [];
  let size = 0;
  // Past the limit the rest is read and dropped, not left unread: leaving the loop would destroy the socket, and the
  // client, still sending, would get a reset instead of the 413 (Node's requestTimeout still bounds a body that never ends).
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  return size > MAX_BODY_BYTES ? 'too-large' : Buffer.concat(chunks);
};

const lambdaContext = (functionName: string, requestId: string): Context => {
  const deadline = Date.now() + DEADLINE_MS;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
};

const send = (res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void => {
  res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string> | undefined);
  res.end(result.body ?? '');
};

interface RequestLine {
  method: string;
  rawPath: string;
  rawQueryString: string;
  match: RouteMatch | undefined;
}

const requestLineOf = (req: IncomingMessage): RequestLine => {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const rawPath = queryAt === -1 ? url : url.slice(0, queryAt);
  const method = req.method ?? 'GET';
  return {
    method,
    rawPath,
    rawQueryString: queryAt === -1 ? '' : url.slice(queryAt + 1),
    match: findRoute(method, rawPath),
  };
};

export const toEvent = (
  req: IncomingMessage,
  body: Buffer,
  requestId: string,
  now: Date,
  line: RequestLine = requestLineOf(req),
): { event: APIGatewayProxyEventV2; target: RouteFunction | 'fallback' } => {
  const { method, rawPath, rawQueryString, match } = line;
  const routeKey = match ? routeKeyOf(match.route) : '$default';
  const headers = headersOf(req);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    headers,
    ...(match && Object.keys(match.pathParameters).length > 0
      ? {
          pathParameters: Object.fromEntries(
            Object.entries(match.pathParameters).map(([k, v]) => [k, decode(v)]),
          ),
        }
      : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey,
      stage: '$default',
      time: now.toISOString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0
      ? { body: body.toString('base64'), isBase64Encoded: true }
      : { isBase64Encoded: false }),
  };
  return { event, target: match ? match.route.function : 'fallback' };
};

/**
 * A request Node cannot parse never reaches a handler, and Node would answer it with a bare status and no body. It
 * gets JSON `{detail}` like every other error instead: 431 when its headers are over Node's 16 KB limit (API Gateway's
 * own is 10 KB), 400 for anything else malformed (bytes not allowed in the request line or a header, NUL, obsolete
 * folding). Not the spec's 401 or 404: an unreadable request has no Authorization or path to judge, so those would
 * be guesses; and never a 5xx, because the fault is the client's.
 */
const answerClientError = (error: Error & { code?: string }, socket: Duplex): void => {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const response = domainErrorResponse(
    error.code === 'HPE_HEADER_OVERFLOW' ? new HeadersTooLargeError() : new MalformedRequestError(),
  );
  const status = response.statusCode ?? 400;
  const body = response.body ?? '';
  const headers = Object.entries({
    ...response.headers,
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers}\r\n${body}`);
};

const screened = (
  screen: RequestScreen,
  target: RouteFunction,
  authorization: string | undefined,
): DomainError | undefined => {
  try {
    screen(target, authorization);
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
};

/** How long the local server keeps an idle connection open (docs/operating.md). */
export const KEEP_ALIVE_MS = 65_000;

/** Path of the benchmarks' timing read-out; served only when the server was created with `handlerTiming`. */
export const HANDLER_TIMING_PATH = '/__bench/handler-timings';

/** Per target: each call as [when it began (ms since the epoch), how long it took (ms)]. */
export type HandlerTimings = Record<RouteFunction | 'fallback', [at: number, ms: number][]>;

const noTimings = (): HandlerTimings => ({ start: [], get: [], fallback: [] });

/**
 * `handlerTiming` (benchmarks only, off by default): records each handler call's own milliseconds, apart from this
 * adapter and the HTTP server, and serves them (then forgets them) at GET HANDLER_TIMING_PATH.
 * `screen`: asked first about every request to a route, so one it is sure is refused (a made-up key, a key past its
 * read limit) is answered before an event is built or a handler runs; the handlers decide everything else as ever.
 */
export const createLocalServer = (
  handlers: HandlerTable,
  log: Logger,
  options: { handlerTiming?: boolean; screen?: RequestScreen | undefined } = {},
): Server => {
  let timings = noTimings();
  const server = createServer(async (req, res) => {
    const requestId = randomUUID();
    if (options.handlerTiming && req.method === 'GET' && req.url === HANDLER_TIMING_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(timings));
      timings = noTimings();
      return;
    }
    try {
      const body = await readBody(req);
      if (body === 'too-large') {
        send(res, domainErrorResponse(new PayloadTooLargeError()));
        return;
      }
      const line = requestLineOf(req);
      if (options.screen && line.match) {
        const refusal = screened(options.screen, line.match.route.function, headerOf(req, 'authorization'));
        if (refusal) {
          send(res, domainErrorResponse(refusal));
          return;
        }
      }
      const { event, target } = toEvent(req, body, requestId, new Date(), line);
      const at = options.handlerTiming ? Date.now() : 0;
      const began = options.handlerTiming ? performance.now() : 0;
      const result = (await handlers[target](
        event,
        lambdaContext(target, requestId),
      )) as APIGatewayProxyStructuredResultV2;
      if (options.handlerTiming) timings[target].push([at, performance.now() - began]);
      send(res, result);
    } catch (error) {
      log.error('local adapter failed', { error, request_id: requestId });
      if (!res.headersSent) send(res, errorResponse(500, 'Internal server error'));
      else res.destroy();
    }
  });
  server.on('clientError', answerClientError);
  // Longer than common client pools keep an idle socket (undici 4 s, AWS SDK and browsers up to 60 s): a client whose
  // event loop stalls between requests must not find its socket closed under it ("other side closed").
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Above the keep-alive, as Node requires, or a socket idle just under it could be cut while its headers arrive.
  server.headersTimeout = KEEP_ALIVE_MS + 1000;
  return server;
};
