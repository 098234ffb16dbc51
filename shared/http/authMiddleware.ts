// Owns authenticating every API request before its handler runs: first the refusals memory alone is sure of
// (screenRequest), then the one authenticate use case.
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '../domain/apiKey';
import { InvalidApiKeyError } from '../domain/errors';
import { type AuthDeps, authenticate } from '../usecases/authenticate';
import { type ScreenDeps, screenRequest } from '../usecases/screenRequest';

export type AuthedContext = Context & { principal?: Principal };

export const authMiddleware = (
  deps: AuthDeps & ScreenDeps,
  options: { reads: boolean },
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, AuthedContext> => ({
  before: async (request) => {
    const authorization = request.event.headers?.authorization;
    request.context.principal =
      screenRequest(deps, { authorization, reads: options.reads }) ??
      (await authenticate(deps, authorization));
  },
});

export const principalOf = (context: AuthedContext): Principal => {
  if (!context.principal) throw new InvalidApiKeyError();
  return context.principal;
};
