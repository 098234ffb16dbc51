// Owns talking to the inbox-placement API over HTTP: start a check, read it, and poll it until it is settled.
// Depends on nothing of the server but the category vocabulary, so API consumers can import it as it is.

import {
  ApiError,
  ApiKeyRejectedError,
  BadResponseError,
  CheckGoneError,
  NetworkError,
  NoAccountsInScopeError,
  WaitTimeoutError,
} from './apiErrors';
import { comparisonProblem, type PlacementComparison } from './compareResponse';
import { type PollIntervalOptions, pollIntervalOf } from './pollInterval';
import { type PlacementReport, reportProblem } from './reportResponse';
import { type CheckView, checkProblem, type StartedCheck, startedCheckProblem } from './resources';

export interface ClientOptions {
  /** Where the API is, e.g. `http://127.0.0.1:3000` or an API Gateway URL with its stage path. */
  baseUrl: string;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Gives up on one request that has not been answered by then (default 30 s); a NetworkError. */
  requestTimeoutMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface StartOptions extends RequestOptions {
  /** Where to send the signed webhook when the check ends (an addition to the contract). */
  callbackUrl?: string;
}

export interface WaitOptions extends PollIntervalOptions, RequestOptions {
  /** Called with every check read, the last one (not pending) included. */
  onProgress?: (check: CheckView) => void;
  /** Rejects with WaitTimeoutError when the check is still pending this long after the call. */
  timeoutMs?: number;
  /** Transient failures (no answer, 5xx, 429) in a row that are retried at the next poll (default 2). */
  retries?: number;
}

export interface InboxPlacementClient {
  /** With `callbackUrl`, the service POSTs a signed webhook there when the check ends (see verifyWebhook). */
  startCheck(options?: StartOptions): Promise<StartedCheck>;
  getCheck(checkId: string, options?: RequestOptions): Promise<CheckView>;
  /** Polls GET, at once and then every interval, until the status is `complete` or `timeout`. */
  waitForCheck(checkId: string, options?: WaitOptions): Promise<CheckView>;
  /** Why each copy landed where it did: `GET /api/spam-check/{check_id}/report`, an addition to the spec. */
  getReport(checkId: string, options?: RequestOptions): Promise<PlacementReport>;
  /**
   * Two checks, or two series of up to 50 checks each, compared per seed with exact tests: `GET
   * /api/spam-check/compare`, an addition.
   */
  compare(a: string | string[], b: string | string[], options?: RequestOptions): Promise<PlacementComparison>;
}

const abortReason = (signal: AbortSignal): unknown =>
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

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts; never leaves a timer behind. */
const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const isTransient = (error: unknown) =>
  error instanceof NetworkError ||
  ((error instanceof ApiError || error instanceof BadResponseError) &&
    (error.status >= 500 || error.status === 429));

export const createClient = (options: ClientOptions): InboxPlacementClient => {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not a URL: ${options.baseUrl}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new TypeError(`baseUrl must be http or https, not ${base.protocol}`);
  // Keep a stage path such as /prod; a trailing slash would double up.
  const root = base.href.replace(/\/+$/, '');
  // A key with a space or newline would make fetch throw a TypeError that looks like a network failure.
  if (!/^[\x21-\x7e]+$/.test(options.apiKey))
    throw new TypeError('apiKey must be a non-empty string of printable characters');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const headers = { authorization: `Bearer ${options.apiKey}`, accept: 'application/json' };

  const request = async (
    method: 'GET' | 'POST',
    path: string,
    signal: AbortSignal | undefined,
    errorFor: (status: number, detail: string) => ApiError,
    json?: unknown,
  ): Promise<{ url: string; status: number; body: unknown }> => {
    const url = `${root}${path}`;
    if (signal?.aborted) throw abortReason(signal);
    const controller = new AbortController();
    const onAbort = () => controller.abort(abortReason(signal as AbortSignal));
    signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, requestTimeoutMs);
    let status: number;
    let text: string;
    try {
      const response = await fetchImpl(url, {
        method,
        signal: controller.signal,
        ...(json === undefined
          ? { headers }
          : { headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(json) }),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      const reason = timedOut ? `no answer within ${requestTimeoutMs} ms` : networkReason(error);
      throw new NetworkError(url, reason, { cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
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
    if (status === 401) throw new ApiKeyRejectedError(detail);
    throw errorFor(status, detail);
  };

  const startCheck = async ({ signal, callbackUrl }: StartOptions = {}): Promise<StartedCheck> => {
    const { url, status, body } = await request(
      'POST',
      '/api/spam-check/start',
      signal,
      (code, detail) => (code === 404 ? new NoAccountsInScopeError(detail) : new ApiError(code, detail)),
      callbackUrl === undefined ? undefined : { callback_url: callbackUrl },
    );
    const problem = startedCheckProblem(body);
    if (problem) throw new BadResponseError(url, status, `not a start response: ${problem}`);
    return body as StartedCheck;
  };

  const getCheck = async (checkId: string, { signal }: RequestOptions = {}): Promise<CheckView> => {
    if (typeof checkId !== 'string' || checkId === '')
      throw new TypeError('checkId must be a non-empty string');
    const path = `/api/spam-check/${encodeURIComponent(checkId)}`;
    const { url, status, body } = await request('GET', path, signal, (code, detail) =>
      code === 404 ? new CheckGoneError(checkId, detail) : new ApiError(code, detail),
    );
    const problem = checkProblem(body);
    if (problem) throw new BadResponseError(url, status, `not a check: ${problem}`);
    return body as CheckView;
  };

  const getReport = async (checkId: string, { signal }: RequestOptions = {}): Promise<PlacementReport> => {
    if (typeof checkId !== 'string' || checkId === '')
      throw new TypeError('checkId must be a non-empty string');
    const path = `/api/spam-check/${encodeURIComponent(checkId)}/report`;
    const { url, status, body } = await request('GET', path, signal, (code, detail) =>
      code === 404 ? new CheckGoneError(checkId, detail) : new ApiError(code, detail),
    );
    const problem = reportProblem(body);
    if (problem) throw new BadResponseError(url, status, `not a placement report: ${problem}`);
    return body as PlacementReport;
  };

  const compare = async (
    a: string | string[],
    b: string | string[],
    { signal }: RequestOptions = {},
  ): Promise<PlacementComparison> => {
    for (const checkId of [a, b].flat())
      if (typeof checkId !== 'string' || checkId === '' || checkId.includes(','))
        throw new TypeError('check ids must be non-empty strings without commas');
    const query = new URLSearchParams({ a: [a].flat().join(','), b: [b].flat().join(',') }).toString();
    const { url, status, body } = await request(
      'GET',
      `/api/spam-check/compare?${query}`,
      signal,
      (code, detail) =>
        code === 404 ? new CheckGoneError(`${a} or ${b}`, detail) : new ApiError(code, detail),
    );
    const problem = comparisonProblem(body);
    if (problem) throw new BadResponseError(url, status, `not a comparison: ${problem}`);
    return body as PlacementComparison;
  };

  const waitForCheck = async (checkId: string, wait: WaitOptions = {}): Promise<CheckView> => {
    const { signal, onProgress, timeoutMs, retries = 2 } = wait;
    const intervalMs = pollIntervalOf(wait);
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    let last: CheckView | undefined;
    for (let failures = 0; ; ) {
      let check: CheckView | undefined;
      try {
        check = await getCheck(checkId, { signal });
        failures = 0;
      } catch (error) {
        if (signal?.aborted || !isTransient(error) || ++failures > retries) throw error;
      }
      if (check) {
        last = check;
        onProgress?.(check);
        if (check.status !== 'pending') return check;
      }
      let delay = intervalMs;
      if (deadline !== undefined) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new WaitTimeoutError(timeoutMs as number, last);
        delay = Math.min(delay, remaining);
      }
      await sleep(delay, signal);
    }
  };

  return { startCheck, getCheck, waitForCheck, getReport, compare };
};
