// With tracing on, every AWS SDK client the process registered is captured into the Powertools Tracer when it loads,
// and a client registered later is captured at once; with tracing off, nothing is loaded or captured. The KMS client
// the Encryption SDK's keyring calls is made inside the keyring's supplier, one per process, and captured too.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { traced, tracing } from '../../shared/adapters/telemetry/tracing';
import { kmsClientSupplier } from '../../shared/composition/sealing';

const XRAY = 'XRaySDKInstrumentation';
const names = (client: { middlewareStack: { identify(): string[] } }) =>
  client.middlewareStack.identify().map((entry) => entry.split(' ')[0]);

describe('traced SDK clients', () => {
  const saved = { ...process.env };
  beforeAll(() => {
    // The Tracer records only inside a Lambda execution environment with tracing on.
    process.env.AWS_EXECUTION_ENV = 'AWS_Lambda_nodejs22.x';
    process.env.POWERTOOLS_TRACE_ENABLED = 'true';
    process.env.AWS_XRAY_CONTEXT_MISSING = 'IGNORE_ERROR';
    process.env._X_AMZN_TRACE_ID =
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1';
  });
  afterAll(() => {
    process.env = saved;
  });

  it('captures each registered client when the first traced invocation loads the Tracer', async () => {
    const dynamo = traced(new DynamoDBClient({ region: 'us-east-1' }));
    expect(names(dynamo)).not.toContain(XRAY);
    const kms = kmsClientSupplier('us-east-1')();
    expect(kmsClientSupplier('us-east-1')()).toBe(kms);
    expect(tracing('scan', false)).toEqual([]);
    const [middleware] = tracing('scan', true);
    await middleware?.before?.({
      event: {},
      context: { functionName: 'scan', awsRequestId: 'r' },
      response: undefined,
      error: undefined,
      internal: {},
    } as never);
    expect(names(dynamo)).toContain(XRAY);
    expect(names(kms)).toContain(XRAY);
    const sqs = traced(new SQSClient({ region: 'us-east-1' }));
    expect(names(sqs)).toContain(XRAY);
  });
});
