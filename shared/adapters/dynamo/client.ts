// Owns construction of the DynamoDB document client; callers create it once per process and pass it on.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoConnection {
  region: string;
  /** Set only for local stand-ins (dynalite, DynamoDB Local); unset on AWS. */
  endpoint?: string | undefined;
}

export const createDocumentClient = ({ region, endpoint }: DynamoConnection): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region,
      ...(endpoint
        ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 3 }
        : {}),
    }),
    { marshallOptions: { removeUndefinedValues: true } },
  );
