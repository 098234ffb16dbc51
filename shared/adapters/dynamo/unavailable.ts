// Owns telling a store outage (unreachable, throttling, failing, after the SDK's retries) from any other DynamoDB
// error, and raising it as the domain's StoreUnavailableError so the API answers 503 and the scanner blames no mailbox.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { StoreUnavailableError } from '../../domain/errors';

const THROTTLING = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionInProgressException',
]);
/** Socket-level failures: nothing answered, or the connection broke before an answer. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

interface SdkError {
  name?: string;
  code?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
}

/** Whether `error` means "the store is not available now", as opposed to a refused or malformed request. */
const isStoreUnavailable = (error: unknown): boolean => {
  if (!error || typeof error !== 'object') return false;
  const { name, code, $fault, $metadata } = error as SdkError;
  if (name && THROTTLING.has(name)) return true;
  if (name === 'TimeoutError' || name === 'RequestTimeout') return true;
  if (code && NETWORK_CODES.has(code)) return true;
  if ($fault === 'server' || ($metadata?.httpStatusCode ?? 0) >= 500) return true;
  return false;
};

/**
 * Runs outside the SDK's retry step ("initialize" wraps every attempt), so only what is still failing after the
 * last attempt becomes a StoreUnavailableError; conditional-check failures and validation errors pass unchanged.
 */
export const raiseStoreUnavailable = (client: DynamoDBClient): void => {
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (isStoreUnavailable(error)) {
          const { name, code } = error as SdkError;
          throw new StoreUnavailableError(`${name ?? 'Error'}${code ? ` (${code})` : ''}`);
        }
        throw error;
      }
    },
    { step: 'initialize', name: 'raiseStoreUnavailable', priority: 'high' },
  );
};
