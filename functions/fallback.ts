// Lambda for API Gateway's $default route: unknown paths and wrong methods get JSON errors, never a gateway page.

import { apiDeps } from '../shared/composition/apiDeps';
import { createFallbackHandler } from '../shared/http/handlers';

export { createFallbackHandler as createHandler };

export const handler = createFallbackHandler(apiDeps());
