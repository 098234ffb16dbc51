// Owns the one middleware stack every API function uses, so handlers only parse, call the domain and shape.
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '../domain/apiKey';
import { type AuthedContext, authMiddleware, principalOf } from './authMiddleware';
import type { ApiDeps } from './deps';
import { errorMiddleware } from './errorMiddleware';
import { requestLog } from './requestLog';
import { jsonResponse } from './responses';

export type ApiAction = (event: APIGatewayProxyEventV2, principal: Principal) => Promise<unknown>;

/** `reads`: the action reads a check (get, the report), so a key past its read limit is refused before it runs. */
export const authenticatedApi = (
  deps: Pick<ApiDeps, 'keys' | 'clock' | 'log' | 'authCache' | 'readLimiter'>,
  action: ApiAction,
  options: { reads: boolean },
) =>
  middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, AuthedContext>()
    .use(requestLog(deps.log))
    .use(errorMiddleware(deps.log))
    .use(authMiddleware(deps, options))
    .handler(async (event, context) => jsonResponse(200, await action(event, principalOf(context))));

export const publicApi = (
  deps: Pick<ApiDeps, 'log'>,
  action: (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>,
) =>
  middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>()
    .use(requestLog(deps.log))
    .use(errorMiddleware(deps.log))
    .handler(action);
