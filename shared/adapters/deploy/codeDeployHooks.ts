// Owns telling CodeDeploy how a lifecycle hook ended (PutLifecycleEventHookExecutionStatus): a signed JSON call,
// since no CodeDeploy client is installed; the answer's body is never logged (it may echo the request).
import { type AwsCredentials, signRequest } from './sigv4';

export type HookStatus = 'Succeeded' | 'Failed';

export interface HookExecution {
  deploymentId: string;
  lifecycleEventHookExecutionId: string;
}

export class CodeDeployHooks {
  constructor(
    private readonly region: string,
    private readonly credentials: () => AwsCredentials,
    private readonly send: typeof fetch = fetch,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async report(execution: HookExecution, status: HookStatus): Promise<void> {
    const host = `codedeploy.${this.region}.amazonaws.com`;
    const body = JSON.stringify({
      deploymentId: execution.deploymentId,
      lifecycleEventHookExecutionId: execution.lifecycleEventHookExecutionId,
      status,
    });
    const headers = signRequest(
      {
        method: 'POST',
        host,
        path: '/',
        query: '',
        headers: {
          'content-type': 'application/x-amz-json-1.1',
          'x-amz-target': 'CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus',
        },
        body,
      },
      { region: this.region, service: 'codedeploy' },
      this.credentials(),
      this.now(),
    );
    const response = await this.send(`https://${host}/`, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) {
      // The error type names the cause (AccessDenied, LifecycleEventAlreadyCompleted) without the request's values.
      const type = response.headers.get('x-amzn-errortype') ?? 'unknown error';
      throw new Error(`CodeDeploy refused the hook status (${response.status}: ${type.split(':')[0]})`);
    }
  }
}
