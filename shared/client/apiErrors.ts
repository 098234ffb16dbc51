// Owns what the client throws: the service's `{detail}` answers (ApiError and one subclass per error of the spec,
// each named as the server names it), no answer at all (NetworkError), an answer outside the contract
// (BadResponseError), and giving up a wait.
import type { CheckView } from './resources';

/**
 * Base class of everything the client throws on purpose; an abort rejects with the signal's reason instead.
 *
 * @example
 * ```ts
 * try {
 *   await client.getCheck(checkId);
 * } catch (error) {
 *   if (!(error instanceof InboxPlacementError)) throw error; // an abort, or a bug
 *   console.error(`${error.name}: ${error.message}`);
 * }
 * ```
 */
export class InboxPlacementError extends Error {
  override get name(): string {
    return this.constructor.name;
  }
}

/**
 * Which of the contract's errors an ApiError is, named as the server's error classes are (without `Error`).
 *
 * @example
 * ```ts
 * if (error instanceof ApiError && error.kind === 'CheckNotFound') startAgain();
 * ```
 */
export type ApiErrorKind = 'InvalidApiKey' | 'NoAccounts' | 'CheckNotFound' | 'Other';

/**
 * The service answered a non-2xx status with a JSON `{detail}` body.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (error instanceof ApiError && error.status === 429) console.error('slow down:', error.detail);
 * }
 * ```
 */
export class ApiError extends InboxPlacementError {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly kind: ApiErrorKind = 'Other',
  ) {
    super(`${status} ${detail}`);
  }
}

/**
 * 401: the Authorization header was missing or malformed, or the key is unknown, revoked or expired.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (error instanceof InvalidApiKeyError) console.error('check INBOX_PLACEMENT_API_KEY:', error.detail);
 * }
 * ```
 */
export class InvalidApiKeyError extends ApiError {
  constructor(detail: string) {
    super(401, detail, 'InvalidApiKey');
  }
}

/**
 * 404 on start: no active test account exists for the key's scope.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (error instanceof NoAccountsError) console.error('register a test account for this scope first');
 * }
 * ```
 */
export class NoAccountsError extends ApiError {
  constructor(detail: string) {
    super(404, detail, 'NoAccounts');
  }
}

/**
 * 404 on get, the report or compare: a wrong id, or a check older than its 10 minutes. Checks are stored, so a
 * restart of the service does not lose one (docs/contract.md, Additions).
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (error instanceof CheckNotFoundError) console.error(`${error.checkId} is unknown or expired`);
 * }
 * ```
 */
export class CheckNotFoundError extends ApiError {
  constructor(
    readonly checkId: string,
    detail: string,
  ) {
    super(404, detail, 'CheckNotFound');
  }
}

/**
 * Deprecated since 1.1.0, gone in the next minor: the 1.0 name of InvalidApiKeyError (the same class).
 *
 * @deprecated Use {@link InvalidApiKeyError}.
 * @alias
 * @example
 * ```ts
 * error instanceof ApiKeyRejectedError; // the same test as error instanceof InvalidApiKeyError
 * ```
 */
export const ApiKeyRejectedError = InvalidApiKeyError;
/** @deprecated Use {@link InvalidApiKeyError}. */
export type ApiKeyRejectedError = InvalidApiKeyError;

/**
 * Deprecated since 1.1.0, gone in the next minor: the 1.0 name of NoAccountsError (the same class).
 *
 * @deprecated Use {@link NoAccountsError}.
 * @alias
 * @example
 * ```ts
 * error instanceof NoAccountsInScopeError; // the same test as error instanceof NoAccountsError
 * ```
 */
export const NoAccountsInScopeError = NoAccountsError;
/** @deprecated Use {@link NoAccountsError}. */
export type NoAccountsInScopeError = NoAccountsError;

/**
 * Deprecated since 1.1.0, gone in the next minor: the 1.0 name of CheckNotFoundError (the same class).
 *
 * @deprecated Use {@link CheckNotFoundError}.
 * @alias
 * @example
 * ```ts
 * error instanceof CheckGoneError; // the same test as error instanceof CheckNotFoundError
 * ```
 */
export const CheckGoneError = CheckNotFoundError;
/** @deprecated Use {@link CheckNotFoundError}. */
export type CheckGoneError = CheckNotFoundError;

/**
 * No answer: refused connection, unknown host, reset, or no response within the request timeout.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (error instanceof NetworkError) console.error(`is the service up at ${error.url}?`);
 * }
 * ```
 */
export class NetworkError extends InboxPlacementError {
  constructor(
    readonly url: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    super(`cannot reach ${url}: ${reason}`, options);
  }
}

/**
 * An answer that is not the contract's JSON: not JSON, the wrong shape, or an error status without `{detail}`.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (error instanceof BadResponseError) console.error(`is ${error.url} the API? it answered ${error.status}`);
 * }
 * ```
 */
export class BadResponseError extends InboxPlacementError {
  constructor(
    readonly url: string,
    readonly status: number,
    reason: string,
  ) {
    super(`${url} answered ${status}: ${reason}`);
  }
}

/**
 * waitForCheck's own deadline (`timeoutMs`) passed while the check was still pending.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (error instanceof WaitTimeoutError) console.error('still pending:', error.lastCheck?.received, 'received');
 * }
 * ```
 */
export class WaitTimeoutError extends InboxPlacementError {
  constructor(
    readonly timeoutMs: number,
    /** The last state read, if any poll succeeded. */
    readonly lastCheck: CheckView | undefined,
  ) {
    super(`the check was still pending after ${timeoutMs} ms`);
  }
}
