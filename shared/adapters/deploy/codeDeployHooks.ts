// Owns telling CodeDeploy how a lifecycle hook ended (PutLifecycleEventHookExecutionStatus), through the process's one
// CodeDeploy client; a refusal is rethrown by its error's name only (its message may echo the request).
import {
  type CodeDeployClient,
  PutLifecycleEventHookExecutionStatusCommand,
} from '@aws-sdk/client-codedeploy';

export type HookStatus = 'Succeeded' | 'Failed';

export interface HookExecution {
  deploymentId: string;
  lifecycleEventHookExecutionId: string;
}

/** Long enough for the SDK's own retries; the hook Lambdas keep at least 30 s for this call. */
const REPORT_TIMEOUT_MS = 20_000;

export class CodeDeployHooks {
  constructor(private readonly client: Pick<CodeDeployClient, 'send'>) {}

  async report(execution: HookExecution, status: HookStatus): Promise<void> {
    try {
      await this.client.send(new PutLifecycleEventHookExecutionStatusCommand({ ...execution, status }), {
        abortSignal: AbortSignal.timeout(REPORT_TIMEOUT_MS),
      });
    } catch (error) {
      // The name says the cause (AccessDeniedException, LifecycleEventAlreadyCompletedException) without the ids.
      const name = error instanceof Error ? error.name : 'unknown error';
      throw new Error(`CodeDeploy refused the hook status (${name})`);
    }
  }
}
