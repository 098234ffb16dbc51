// Owns the named errors the domain throws; shared/http/errorMiddleware.ts is the one place that maps them to HTTP.

export abstract class DomainError extends Error {
  abstract readonly status: number;
  /** The exact `detail` text clients see. */
  abstract readonly detail: string;
  override get name(): string {
    return this.constructor.name;
  }
}

export class InvalidApiKeyError extends DomainError {
  readonly status = 401;
  readonly detail = 'Invalid or missing API key';
}

export class NoAccountsError extends DomainError {
  readonly status = 404;
  readonly detail = 'No accounts available for this scope';
}

export class CheckNotFoundError extends DomainError {
  readonly status = 404;
  readonly detail = 'Check not found or expired';
}

/** A per-key limit refused the request (an addition: docs/contract.md, "Additions"); it may be retried after `retryAfterSeconds`. */
export abstract class TooManyRequestsError extends DomainError {
  readonly status = 429;
  constructor(readonly retryAfterSeconds: number) {
    super();
  }
}

export class TooManyStartsError extends TooManyRequestsError {
  get detail(): string {
    return `Too many checks started with this API key; retry after ${this.retryAfterSeconds} seconds`;
  }
}

export class TooManyChecksInFlightError extends TooManyRequestsError {
  get detail(): string {
    return `Too many checks in flight for this API key; retry after ${this.retryAfterSeconds} seconds`;
  }
}

/**
 * The store is unreachable, throttling or failing after the client's own retries (an addition: docs/contract.md,
 * "Additions"): the request may be retried after `retryAfterSeconds`. It is never an account's fault.
 */
export class StoreUnavailableError extends DomainError {
  readonly status = 503;
  readonly detail = 'Service temporarily unavailable';
  readonly retryAfterSeconds = STORE_RETRY_AFTER_SECONDS;
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** How long a client is asked to wait after a 503: an outage the SDK's retries could not ride out lasts seconds. */
export const STORE_RETRY_AFTER_SECONDS = 5;

/** Thrown when a write that must happen once finds it already happened (e.g. an id collision). */
export class ConflictError extends Error {}

/** Bad input to an operator command or to configuration; its message is meant for a person. */
export class InvalidInputError extends Error {}
