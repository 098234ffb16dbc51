// Owns the one mapping from thrown errors to `{detail}` responses; anything unexpected is a 500 that leaks nothing.
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  DomainError,
  InvalidApiKeyError,
  StoreUnavailableError,
  TooManyRequestsError,
} from '../domain/errors';
import type { Logger } from '../log';
import { MethodNotAllowedError } from './requestErrors';
import { errorResponse } from './responses';

const headersFor = (error: DomainError): Record<string, string> => {
  if (error instanceof InvalidApiKeyError) return { 'www-authenticate': 'Bearer' };
  if (error instanceof MethodNotAllowedError) return { allow: error.allow.join(', ') };
  if (error instanceof TooManyRequestsError || error instanceof StoreUnavailableError) {
    return { 'retry-after': String(error.retryAfterSeconds) };
  }
  return {};
};

/** The response for a named error: the one wording of every `{detail}` body, with its status and headers. */
export const domainErrorResponse = (error: DomainError): APIGatewayProxyStructuredResultV2 =>
  errorResponse(error.status, error.detail, headersFor(error));

export const errorMiddleware = (
  log: Logger,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => ({
  onError: async (request) => {
    const { error } = request;
    if (error instanceof DomainError) {
      // The cause stays in the log; the client only learns to retry.
      if (error instanceof StoreUnavailableError) {
        log.warn('store unavailable', { reason: error.reason, route: request.event.routeKey });
      }
      request.response = domainErrorResponse(error);
      return;
    }
    log.error('request failed', {
      error,
      route: request.event.routeKey,
      request_id: request.event.requestContext?.requestId,
    });
    request.response = errorResponse(500, 'Internal server error');
  },
});
