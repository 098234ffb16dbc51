// Owns what the client throws: the service's `{detail}` answers (ApiError and one subclass per error of the spec),
// no answer at all (NetworkError), an answer outside the contract (BadResponseError), and giving up a wait.
import type { CheckView } from './resources';

/** Base class of everything the client throws on purpose; an abort rejects with the signal's reason instead. */
export class InboxPlacementError extends Error {
  override get name(): string {
    return this.constructor.name;
  }
}

export type ApiErrorKind = 'InvalidApiKey' | 'NoAccounts' | 'CheckNotFound' | 'Other';

/** The service answered a non-2xx status with a JSON `{detail}` body. */
export class ApiError extends InboxPlacementError {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly kind: ApiErrorKind = 'Other',
  ) {
    super(`${status} ${detail}`);
  }
}

/** 401: the Authorization header was missing or malformed, or the key is unknown, revoked or expired. */
export class ApiKeyRejectedError extends ApiError {
  constructor(detail: string) {
    super(401, detail, 'InvalidApiKey');
  }
}

/** 404 on start: no active test account exists for the key's scope. */
export class NoAccountsInScopeError extends ApiError {
  constructor(detail: string) {
    super(404, detail, 'NoAccounts');
  }
}

/** 404 on get: a wrong id, a check older than 10 minutes, or one lost by a restart of the service. */
export class CheckGoneError extends ApiError {
  constructor(
    readonly checkId: string,
    detail: string,
  ) {
    super(404, detail, 'CheckNotFound');
  }
}

/** No answer: refused connection, unknown host, reset, or no response within the request timeout. */
export class NetworkError extends InboxPlacementError {
  constructor(
    readonly url: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`cannot reach ${url}: ${reason}`, options);
  }
}

/** An answer that is not the contract's JSON: not JSON, the wrong shape, or an error status without `{detail}`. */
export class BadResponseError extends InboxPlacementError {
  constructor(
    readonly url: string,
    readonly status: number,
    reason: string,
  ) {
    super(`${url} answered ${status}: ${reason}`);
  }
}

/** waitForCheck's own deadline (`timeoutMs`) passed while the check was still pending. */
export class WaitTimeoutError extends InboxPlacementError {
  constructor(
    readonly timeoutMs: number,
    /** The last state read, if any poll succeeded. */
    readonly lastCheck: CheckView | undefined,
  ) {
    super(`the check was still pending after ${timeoutMs} ms`);
  }
}
