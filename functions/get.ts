// Lambda for GET /api/spam-check/{check_id}: reads a check of the caller's scope.

import { apiDeps } from '../shared/composition/apiDeps';
import { createGetHandler } from '../shared/http/handlers';

export { createGetHandler as createHandler };

export const handler = createGetHandler(apiDeps());
