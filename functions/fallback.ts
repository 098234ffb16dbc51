// Lambda for API Gateway's $default route: unknown paths and wrong methods get JSON errors, never a gateway page.

import middy from '@middy/core';
import { apiDeps, apiTracing } from '../shared/composition/apiDeps';
import { createFallbackHandler } from '../shared/http/handlers';

export { createFallbackHandler as createHandler };

export const handler = middy().use(apiTracing()).handler(createFallbackHandler(apiDeps()));
