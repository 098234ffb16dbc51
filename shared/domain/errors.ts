// Owns the named errors the domain throws; shared/http/errorMiddleware.ts is the one place that maps them to HTTP.

export abstract class DomainError extends Error {
  abstract readonly status: number;

  constructor(message?: string) {
    // An answer to a request, never a fault to trace: capturing a stack was a large share of what a refusal cost
    // under a flood of them, and no log or response ever shows one.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }

  /** The exact `detail` text clients see. */
  abstract readonly detail: string;
  override get name(): string {
    return this.constructor.name;
  }
}

/** The base of an error that always answers `status` with the same `detail`; subclass it to give the error a name. */
export const fixedError = (status: number, detail: string) =>
  class extends DomainError {
    readonly status = status;
    readonly detail = detail;
  };

export class InvalidApiKeyError extends fixedError(401, 'Invalid or missing API key') {}
export class NoAccountsError extends fixedError(404, 'No accounts available for this scope') {}
export class CheckNotFoundError extends fixedError(404, 'Check not found or expired') {}

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

/** The scope's ceiling, over all of its keys together. */
export class TooManyScopeChecksInFlightError extends TooManyRequestsError {
  get detail(): string {
    return `Too many checks in flight for this scope; retry after ${this.retryAfterSeconds} seconds`;
  }
}

/** Get and the report, per key. */
export class TooManyReadsError extends TooManyRequestsError {
  get detail(): string {
    return `Too many requests with this API key; retry after ${this.retryAfterSeconds} seconds`;
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
