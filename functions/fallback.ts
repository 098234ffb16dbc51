// Lambda for API Gateway's $default route: unknown paths and wrong methods get JSON errors, never a gateway page.

import { type ApiDeps, apiDeps } from '../shared/composition/apiDeps';
import { MethodNotAllowedError, RouteNotFoundError } from '../shared/domain/errors';
import { publicApi } from '../shared/http/apiHandler';
import { allowedMethods } from '../shared/http/routes';

export const createHandler = (deps: Pick<ApiDeps, 'log'>) =>
  publicApi(deps, async (event) => {
    const allow = allowedMethods(event.rawPath);
    throw allow.length > 0 ? new MethodNotAllowedError(allow) : new RouteNotFoundError();
  });

export const handler = createHandler(apiDeps());
