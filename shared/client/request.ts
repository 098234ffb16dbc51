// Owns one HTTP exchange of the client with the API: the connection settings checked once, the request with its
// timeout and the caller's abort, and the answer turned into a body or the contract's error.
import { ApiError, BadResponseError, InvalidApiKeyError, NetworkError } from './apiErrors';

/** Where and how to reach the API, as createClient takes it. */
export interface Connection {
  /** Where the API is, e.g. `http://127.0.0.1:3000` or an API Gateway URL with its stage path. */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Gives up on one request that has not been answered by then (default 30 s); a NetworkError. */
  requestTimeoutMs?: number;
}

/** One request: its method, path under the base URL, the caller's signal and optional JSON body. */
interface Exchange {
  method: 'GET' | 'POST';
  path: string;
  signal: AbortSignal | undefined;
  /** The error a non-401 `{detail}` answer becomes for this operation (404 means a different thing on each). */
  errorFor: (status: number, detail: string) => ApiError;
  json?: unknown;
}

export interface Answer {
  url: string;
  status: number;
  body: unknown;
}

export const abortReason = (signal: AbortSignal): unknown =>
  signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

/** Why fetch failed, from the innermost cause: undici wraps `connect ECONNREFUSED …` in `fetch failed`. */
const networkReason = (error: unknown): string => {
  let current = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  if (current instanceof AggregateError && current.errors.length > 0)
    return current.errors.map((inner: unknown) => networkReason(inner)).join('; ');
  if (current instanceof Error)
    return current.message || String((current as { code?: unknown }).code ?? current.name);
  return String(current);
};

const PRINTABLE = /^[\x21-\x7e]+$/;

/** The base URL without a trailing slash, checked: a TypeError now rather than a confusing failure later. */
const rootOf = (connection: Connection): string => {
  let base: URL;
  try {
    base = new URL(connection.baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not a URL: ${connection.baseUrl}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new TypeError(`baseUrl must be http or https, not ${base.protocol}`);
  // A key with a space or newline would make fetch throw a TypeError that looks like a network failure.
  if (!PRINTABLE.test(connection.apiKey))
    throw new TypeError('apiKey must be a non-empty string of printable characters');
  // Keep a stage path such as /prod; a trailing slash would double up.
  return base.href.replace(/\/+$/, '');
};

/** The answer's JSON body, or the contract's error for it. */
const answerOf = (url: string, status: number, text: string, exchange: Exchange): Answer => {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const what = text.trim() === '' ? 'an empty body' : 'a body that is not JSON';
    throw new BadResponseError(url, status, `${what} (is the URL right?)`);
  }
  if (status >= 200 && status < 300) return { url, status, body };
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail !== 'string')
    throw new BadResponseError(url, status, 'an error without a {detail} body (is the URL right?)');
  if (status === 401) throw new InvalidApiKeyError(detail);
  throw exchange.errorFor(status, detail);
};

/** A function making one exchange with the API at `connection`, settings checked once here. */
export const requesterOf = (connection: Connection) => {
  const root = rootOf(connection);
  const fetchImpl = connection.fetch ?? globalThis.fetch;
  const requestTimeoutMs = connection.requestTimeoutMs ?? 30_000;
  const headers = { authorization: `Bearer ${connection.apiKey}`, accept: 'application/json' };
  return async (exchange: Exchange): Promise<Answer> => {
    const { method, signal, json } = exchange;
    const url = `${root}${exchange.path}`;
    if (signal?.aborted) throw abortReason(signal);
    const controller = new AbortController();
    const onAbort = () => controller.abort(abortReason(signal as AbortSignal));
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, requestTimeoutMs);
    try {
      const response = await fetchImpl(url, {
        method,
        signal: controller.signal,
        ...(json === undefined
          ? { headers }
          : { headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(json) }),
      });
      const text = await response.text();
      return answerOf(url, response.status, text, exchange);
    } catch (error) {
      if (error instanceof ApiError || error instanceof BadResponseError) throw error;
      if (signal?.aborted) throw abortReason(signal);
      const reason = timedOut ? `no answer within ${requestTimeoutMs} ms` : networkReason(error);
      throw new NetworkError(url, reason, { cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  };
};
