// Owns the errors only the HTTP layer raises: about the request itself (its route, method, size, syntax), never about
// the service's resources. Mapped to `{detail}` by errorMiddleware like every DomainError.
import { DomainError } from '../domain/errors';

export class RouteNotFoundError extends DomainError {
  readonly status = 404;
  readonly detail = 'Not found';
}

export class MethodNotAllowedError extends DomainError {
  readonly status = 405;
  readonly detail = 'Method not allowed';
  constructor(readonly allow: readonly string[]) {
    super();
  }
}

export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
  readonly detail = 'Request too large';
}

/** Local server only: the request's headers are over Node's limit, so it is not read at all. */
export class HeadersTooLargeError extends DomainError {
  readonly status = 431;
  readonly detail = 'Request headers too large';
}

/** Local server only: the request is not HTTP Node can parse (bad bytes, NUL, obsolete folding, …). */
export class MalformedRequestError extends DomainError {
  readonly status = 400;
  readonly detail = 'Malformed request';
}
