// Lambda for POST /api/spam-check/start: starts a check for the caller's scope.

import { type ApiDeps, apiDeps } from '../shared/composition/apiDeps';
import { authenticatedApi } from '../shared/http/apiHandler';
import { startCheck } from '../shared/usecases/startCheck';

export const createHandler = (deps: ApiDeps) =>
  authenticatedApi(deps, (_event, principal) => startCheck(deps, principal));

export const handler = createHandler(apiDeps());
