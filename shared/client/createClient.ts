// Owns the typed client of the inbox-placement API: start a check, read it, its report, a comparison, and wait
// for it to settle. Depends on nothing of the server but the category vocabulary, so API consumers can import it.

import type { ReportAudit } from '../domain/auditReport';
import { withSnakeKeys } from '../domain/wireKeys';
import { ApiError, BadResponseError, CheckNotFoundError, NoAccountsError } from './apiErrors';
import { comparisonProblem, type PlacementComparison } from './compareResponse';
import { type PlacementReport, reportProblem } from './reportResponse';
import { type Answer, type Connection, requesterOf } from './request';
import { type CheckView, checkProblem, type StartedCheck, startedCheckProblem } from './resources';
import { pollUntilSettled, type WaitOptions } from './waitForCheck';

export type { WaitOptions } from './waitForCheck';

/**
 * Where the API is and the key to reach it with; checked when the client is created.
 *
 * @example
 * ```ts
 * const options: ClientOptions = { baseUrl: 'http://127.0.0.1:3000', apiKey: 'ipk_…' };
 * ```
 */
export type ClientOptions = Connection;

/**
 * What every call takes: a signal to abort it with.
 *
 * @example
 * ```ts
 * const check = await client.getCheck(checkId, { signal: AbortSignal.timeout(10_000) });
 * ```
 */
export interface RequestOptions {
  signal?: AbortSignal;
}

/**
 * startCheck's options: a signal, and where to send a signed webhook when the check ends.
 *
 * @example
 * ```ts
 * const started = await client.startCheck({ callbackUrl: 'https://hooks.example.com/placement' });
 * ```
 */
export interface StartOptions extends RequestOptions {
  /** Where to send the signed webhook when the check ends (an addition to the contract). */
  callbackUrl?: string;
}

/**
 * The client createClient returns: one method per operation of the API, each throwing the client's errors.
 *
 * @example
 * ```ts
 * const { check_id, accounts } = await client.startCheck();
 * await sendOneMessageTo(accounts);
 * const settled = await client.waitForCheck(check_id, { timeoutMs: 6 * 60_000 });
 * const report = await client.getReport(check_id);
 * ```
 */
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

const requireCheckId = (checkId: string, what = 'checkId must be a non-empty string'): void => {
  if (typeof checkId !== 'string' || checkId === '') throw new TypeError(what);
};

/** The body when `problem` finds none in it, else a BadResponseError saying what it is not. */
const shaped = <T>({ url, status, body }: Answer, problem: string | undefined, what: string): T => {
  if (problem) throw new BadResponseError(url, status, `not ${what}: ${problem}`);
  return body as T;
};

/** A 404 that means the check is unknown or expired, any other status as it came. */
const checkErrorFor = (checkId: string) => (code: number, detail: string) =>
  code === 404 ? new CheckNotFoundError(checkId, detail) : new ApiError(code, detail);

/** The read operations: a check, its report and a comparison of two, each checked against its shape. */
const readersOf = (request: ReturnType<typeof requesterOf>) => {
  const getCheck = async (checkId: string, { signal }: RequestOptions = {}): Promise<CheckView> => {
    requireCheckId(checkId);
    const path = `/api/spam-check/${encodeURIComponent(checkId)}`;
    const answer = await request({ method: 'GET', path, signal, errorFor: checkErrorFor(checkId) });
    return shaped(answer, checkProblem(answer.body), 'a check');
  };
  const getReport = async (checkId: string, { signal }: RequestOptions = {}): Promise<PlacementReport> => {
    requireCheckId(checkId);
    const path = `/api/spam-check/${encodeURIComponent(checkId)}/report`;
    const answer = await request({ method: 'GET', path, signal, errorFor: checkErrorFor(checkId) });
    const report = shaped<PlacementReport>(answer, reportProblem(answer.body), 'a placement report');
    // A 1.0 service wrote the audit in camelCase alone: the client hands back 1.1.0's names from either.
    return report.audit === undefined
      ? report
      : { ...report, audit: withSnakeKeys(report.audit as ReportAudit) };
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
    const path = `/api/spam-check/compare?${query}`;
    const answer = await request({ method: 'GET', path, signal, errorFor: checkErrorFor(`${a} or ${b}`) });
    return shaped(answer, comparisonProblem(answer.body), 'a comparison');
  };
  return { getCheck, getReport, compare };
};

/**
 * A client of the API at `options.baseUrl`; throws a TypeError at once for a base URL or key that cannot work.
 *
 * @example
 * ```ts
 * import { createClient, CheckNotFoundError } from 'inbox-placement/shared/client';
 *
 * const client = createClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'ipk_…' });
 * const { check_id, accounts } = await client.startCheck();
 * // send ONE message to every address in `accounts`, then:
 * const check = await client.waitForCheck(check_id, { onProgress: (c) => console.log(c.received, 'of', c.total) });
 * ```
 */
export const createClient = (options: ClientOptions): InboxPlacementClient => {
  const request = requesterOf(options);
  const readers = readersOf(request);
  const startCheck = async ({ signal, callbackUrl }: StartOptions = {}): Promise<StartedCheck> => {
    const answer = await request({
      method: 'POST',
      path: '/api/spam-check/start',
      signal,
      errorFor: (code, detail) => (code === 404 ? new NoAccountsError(detail) : new ApiError(code, detail)),
      json: callbackUrl === undefined ? undefined : { callback_url: callbackUrl },
    });
    return shaped(answer, startedCheckProblem(answer.body), 'a start response');
  };
  const waitForCheck = (checkId: string, wait: WaitOptions = {}): Promise<CheckView> =>
    pollUntilSettled(readers.getCheck, checkId, wait);
  return { startCheck, waitForCheck, ...readers };
};
