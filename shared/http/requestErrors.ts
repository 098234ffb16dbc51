// Owns the errors only the HTTP layer raises: about the request itself (its route, method, size, syntax), never about
// the service's resources. Mapped to `{detail}` by errorMiddleware like every DomainError.
import { fixedError } from '../domain/errors';

export class RouteNotFoundError extends fixedError(404, 'Not found') {}

export class MethodNotAllowedError extends fixedError(405, 'Method not allowed') {
  constructor(readonly allow: readonly string[]) {
    super();
  }
}

export class PayloadTooLargeError extends fixedError(413, 'Request too large') {}

/** Local server only: the request's headers are over Node's limit, so it is not read at all. */
export class HeadersTooLargeError extends fixedError(431, 'Request headers too large') {}

/** Local server only: the request is not HTTP Node can parse (bad bytes, NUL, obsolete folding, …). */
export class MalformedRequestError extends fixedError(400, 'Malformed request') {}
