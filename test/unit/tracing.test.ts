// The Tracer middleware: nothing at all unless the deploy turned tracing on; on, it wraps each invocation
// (Powertools' captureLambdaHandler) and leaves its answer and its errors as they were.
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { tracing } from '../../shared/adapters/telemetry/tracing';
import { loadApiConfig } from '../../shared/config';

const context = { awsRequestId: 'r-1', getRemainingTimeInMillis: () => 1000 } as unknown as Context;

describe('tracing', () => {
  it('is no middleware at all when off, the default', () => {
    expect(tracing('api', false)).toEqual([]);
    // middy takes the empty list where it would refuse an empty middleware.
    expect(() => middy(async () => 'answered').use(tracing('api', false))).not.toThrow();
    const env = { TABLE_NAME: 't', AWS_REGION: 'eu-west-1' };
    expect(loadApiConfig(env).POWERTOOLS_TRACE_ENABLED).toBe('false');
    expect(loadApiConfig({ ...env, POWERTOOLS_TRACE_ENABLED: 'true' }).POWERTOOLS_TRACE_ENABLED).toBe('true');
  });

  it('wraps each invocation when on, passing answers and errors through', async () => {
    const middleware = tracing('api', true);
    expect(middleware.map((m) => Object.keys(m).sort())).toEqual([['after', 'before', 'onError']]);
    const answering = middy(async () => 'answered').use(middleware);
    expect(await answering({}, context)).toBe('answered');
    const failing = middy(async () => {
      throw new Error('handler failed');
    }).use(tracing('api', true));
    await expect(failing({}, context)).rejects.toThrow('handler failed');
  });
});
