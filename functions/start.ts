// Lambda for POST /api/spam-check/start: starts a check for the caller's scope.

import middy from '@middy/core';
import { apiDeps, apiTracing } from '../shared/composition/apiDeps';
import { createStartHandler } from '../shared/http/handlers';

export { createStartHandler as createHandler };

export const handler = middy().use(apiTracing()).handler(createStartHandler(apiDeps()));
