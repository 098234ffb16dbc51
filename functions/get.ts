// Lambda for GET /api/spam-check/{check_id}: reads a check of the caller's scope.

import { type ApiDeps, apiDeps } from '../shared/composition/apiDeps';
import { authenticatedApi } from '../shared/http/apiHandler';
import { getCheck } from '../shared/usecases/getCheck';

export const createHandler = (deps: ApiDeps) =>
  authenticatedApi(deps, (event, principal) =>
    getCheck(deps, principal, event.pathParameters?.check_id ?? ''),
  );

export const handler = createHandler(apiDeps());
