// Owns authenticating every API request before its handler runs, through the one authenticate use case.
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '../domain/apiKey';
import type { AuthCache } from '../domain/authCache';
import type { Clock } from '../domain/clock';
import { InvalidApiKeyError } from '../domain/errors';
import type { ApiKeyStore } from '../domain/ports';
import { authenticate } from '../usecases/authenticate';

export type AuthedContext = Context & { principal?: Principal };

export const authMiddleware = (deps: {
  keys: ApiKeyStore;
  clock: Clock;
  authCache?: AuthCache | undefined;
}): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, AuthedContext> => ({
  before: async (request) => {
    request.context.principal = await authenticate(deps, request.event.headers?.authorization);
  },
});

export const principalOf = (context: AuthedContext): Principal => {
  if (!context.principal) throw new InvalidApiKeyError();
  return context.principal;
};
