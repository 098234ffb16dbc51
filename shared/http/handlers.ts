// Owns the three API handlers over their dependencies: Lambda's functions/*.ts export them built over the production
// wiring, npm start and the tests build them over their own. One place, so every way of running serves the same code.

import { getCheck } from '../usecases/getCheck';
import { startCheck } from '../usecases/startCheck';
import { authenticatedApi, publicApi } from './apiHandler';
import type { ApiDeps } from './deps';
import { MethodNotAllowedError, RouteNotFoundError } from './errors';
import { allowedMethods } from './routes';

/** POST /api/spam-check/start: starts a check for the caller's scope. */
export const createStartHandler = (deps: ApiDeps) =>
  authenticatedApi(deps, (_event, principal) => startCheck(deps, principal));

/** GET /api/spam-check/{check_id}: reads a check of the caller's scope. */
export const createGetHandler = (deps: ApiDeps) =>
  authenticatedApi(deps, (event, principal) =>
    getCheck(deps, principal, event.pathParameters?.check_id ?? ''),
  );

/** API Gateway's $default route: unknown paths and wrong methods get JSON errors, never a gateway page. */
export const createFallbackHandler = (deps: Pick<ApiDeps, 'log'>) =>
  publicApi(deps, async (event) => {
    const allow = allowedMethods(event.rawPath);
    throw allow.length > 0 ? new MethodNotAllowedError(allow) : new RouteNotFoundError();
  });
