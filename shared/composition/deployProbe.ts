// Owns the deploy probe hook's wiring: CodeDeploy calls it before the scanner's alias moves; it runs the new
// version's synthetic sweep and reports Succeeded or Failed (then CodeDeploy leaves the alias where it was).
import { LambdaClient } from '@aws-sdk/client-lambda';
import { CodeDeployHooks, type HookExecution } from '../adapters/deploy/codeDeployHooks';
import { probeScannerVersion } from '../adapters/deploy/scannerProbe';
import type { Logger } from '../log';
import type { ProbeOutcome } from '../scanner/probe';
import type { DeployProbeConfig } from '../settings/deployHooks';

export interface DeployProbeParts {
  probe: () => Promise<ProbeOutcome>;
  hooks: Pick<CodeDeployHooks, 'report'>;
  log: Logger;
}

/** The hook's event: which deployment and which of its lifecycle hooks to answer. */
export interface HookEvent {
  DeploymentId?: unknown;
  LifecycleEventHookExecutionId?: unknown;
}

export const executionOf = (event: HookEvent): HookExecution => {
  const { DeploymentId, LifecycleEventHookExecutionId } = event;
  if (typeof DeploymentId !== 'string' || typeof LifecycleEventHookExecutionId !== 'string') {
    throw new Error('not a CodeDeploy lifecycle hook event');
  }
  return { deploymentId: DeploymentId, lifecycleEventHookExecutionId: LifecycleEventHookExecutionId };
};

/** Runs the probe and always reports: a probe that throws is a failed deployment, never a hook left hanging. */
export const runDeployProbe = async (parts: DeployProbeParts, event: HookEvent): Promise<ProbeOutcome> => {
  const execution = executionOf(event);
  const outcome = await parts.probe().catch(
    (error: unknown): ProbeOutcome => ({
      passed: false,
      reason: error instanceof Error ? error.name : 'the probe failed',
    }),
  );
  parts.log[outcome.passed ? 'info' : 'error']('deploy probe of the new scanner version', {
    deployment_id: execution.deploymentId,
    ...outcome,
  });
  await parts.hooks.report(execution, outcome.passed ? 'Succeeded' : 'Failed');
  return outcome;
};

export const composeDeployProbe = (config: DeployProbeConfig, log: Logger): DeployProbeParts => {
  const lambda = new LambdaClient({ region: config.AWS_REGION });
  return {
    probe: () => probeScannerVersion(lambda, config.SCANNER_VERSION_ARN),
    hooks: new CodeDeployHooks(config.AWS_REGION, () => ({
      accessKeyId: config.AWS_ACCESS_KEY_ID,
      secretAccessKey: config.AWS_SECRET_ACCESS_KEY,
      sessionToken: config.AWS_SESSION_TOKEN,
    })),
    log,
  };
};
