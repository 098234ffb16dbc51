// Lambda for GET /api/spam-check/{check_id} (a check of the caller's scope) and GET …/{check_id}/report (its
// placement report, an addition).

import middy from '@middy/core';
import { apiDeps, apiTracing } from '../shared/composition/apiDeps';
import { createGetHandler } from '../shared/http/handlers';

export { createGetHandler as createHandler };

export const handler = middy().use(apiTracing()).handler(createGetHandler(apiDeps()));
