// Lambda for POST /api/spam-check/start: starts a check for the caller's scope.

import { apiDeps } from '../shared/composition/apiDeps';
import { createStartHandler } from '../shared/http/handlers';

export { createStartHandler as createHandler };

export const handler = createStartHandler(apiDeps());
