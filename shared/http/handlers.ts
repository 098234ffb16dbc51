// Owns the three API handlers (get also serves the placement report) over their dependencies: Lambda's functions/*.ts export them built over the production
// wiring, npm start and the tests build them over their own. One place, so every way of running serves the same code.

import { compareChecks } from '../usecases/compareChecks';
import { getCheck } from '../usecases/getCheck';
import { listHistory } from '../usecases/listHistory';
import { type ScreenDeps, screenRequest } from '../usecases/screenRequest';
import { startCheck } from '../usecases/startCheck';
import { getReportWithWebhook } from '../webhooks';
import { authenticatedApi, publicApi } from './apiHandler';
import { compareIdsOf } from './compareRequest';
import type { ApiDeps } from './deps';
import { historyPageOf } from './historyRequest';
import { MethodNotAllowedError, RouteNotFoundError } from './requestErrors';
import {
  allowedMethods,
  COMPARE_ROUTE,
  HISTORY_ROUTE,
  REPORT_ROUTE,
  type RouteFunction,
  routeKeyOf,
} from './routes';
import { startOptionsOf } from './startRequest';

/** Whether each function reads checks (get, the report, compare), and so counts against the per-key read limit. */
const READS: Record<RouteFunction, { reads: boolean }> = { start: { reads: false }, get: { reads: true } };

/**
 * The refusals memory alone is sure of, for a server to answer before it builds an event (npm start's HTTP adapter):
 * the same as the handlers' own first middleware, which still runs on every request that gets through.
 */
export const createScreen =
  (deps: ScreenDeps) =>
  (target: RouteFunction, authorization: string | undefined): void => {
    screenRequest(deps, { authorization, ...READS[target] });
  };

/** POST /api/spam-check/start: starts a check for the caller's scope. */
export const createStartHandler = (deps: ApiDeps) =>
  authenticatedApi(
    deps,
    (event, principal) => startCheck(deps, principal, startOptionsOf(event, deps.callbackPolicy)),
    READS.start,
  );

/**
 * GET /api/spam-check/{check_id}: reads a check of the caller's scope; with `/report`, its placement report;
 * `/compare?a=…&b=…`, two series of them compared; `/history`, the scope's archived checks.
 */
export const createGetHandler = (deps: ApiDeps) =>
  authenticatedApi(
    deps,
    (event, principal) => {
      if (event.routeKey === routeKeyOf(COMPARE_ROUTE)) {
        const { a, b } = compareIdsOf(event);
        return compareChecks(deps, principal, a, b);
      }
      if (event.routeKey === routeKeyOf(HISTORY_ROUTE))
        return listHistory(deps, principal, historyPageOf(event));
      const checkId = event.pathParameters?.check_id ?? '';
      return event.routeKey === routeKeyOf(REPORT_ROUTE)
        ? getReportWithWebhook(deps, principal, checkId)
        : getCheck(deps, principal, checkId);
    },
    READS.get,
  );

/** API Gateway's $default route: unknown paths and wrong methods get JSON errors, never a gateway page. */
export const createFallbackHandler = (deps: Pick<ApiDeps, 'log'>) =>
  publicApi(deps, async (event) => {
    const allow = allowedMethods(event.rawPath);
    throw allow.length > 0 ? new MethodNotAllowedError(allow) : new RouteNotFoundError();
  });
