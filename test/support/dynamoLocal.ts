// Owns the tests' view of AWS's DynamoDB Local (started by scripts/lib/dynamoLocal.ts, shared with the bench): the
// client timeouts the tests give it.
export { startDynamoLocal } from '../../scripts/lib/dynamoLocal';

/** Clients of DynamoDB Local in the tests: 10 s an attempt, where DynamoDB itself gets 1 s (DYNAMO_TIMEOUTS). */
export const DYNAMO_LOCAL_TIMEOUTS = { connectionTimeout: 10_000, requestTimeout: 10_000, maxAttempts: 3 };
