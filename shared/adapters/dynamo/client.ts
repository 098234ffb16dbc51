// Owns construction of the DynamoDB document client; callers create it once per process and pass it on.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { raiseStoreUnavailable } from './unavailable';

export interface DynamoConnection {
  region: string;
  /** Set only for local stand-ins (dynalite, DynamoDB Local); unset on AWS. */
  endpoint?: string | undefined;
  /** DYNAMO_TIMEOUTS unless given: a stand-in slower than DynamoDB (a JVM on a busy test machine) may need more. */
  timeouts?: { connectionTimeout: number; requestTimeout: number; maxAttempts: number };
}

/**
 * Every attempt is bounded (the SDK's defaults wait forever on a server that accepts and never answers), and
 * throttling, timeouts and 5xx are retried up to 3 attempts in all: a call gives up within about 3.6 s, so an API
 * request needing two calls still answers its `{detail}` inside the API Lambda's 10 s timeout.
 */
export const DYNAMO_TIMEOUTS = { connectionTimeout: 1000, requestTimeout: 1000, maxAttempts: 3 } as const;

export const createDocumentClient = ({
  region,
  endpoint,
  timeouts = DYNAMO_TIMEOUTS,
}: DynamoConnection): DynamoDBDocumentClient => {
  const client = new DynamoDBClient({
    region,
    maxAttempts: timeouts.maxAttempts,
    requestHandler: {
      connectionTimeout: timeouts.connectionTimeout,
      requestTimeout: timeouts.requestTimeout,
      throwOnRequestTimeout: true,
    },
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  // An outage after the retries above is the domain's StoreUnavailableError: 503 at the API, no mailbox's fault.
  raiseStoreUnavailable(client);
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
};
