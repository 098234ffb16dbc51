// Owns the deploy probe hook's wiring: CodeDeploy calls it before the scanner's alias moves; it runs the new
// version's synthetic sweep and reports Succeeded or Failed (then CodeDeploy leaves the alias where it was).
import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { CodeDeployHooks, type HookExecution } from '../adapters/deploy/codeDeployHooks';
import { probeScannerVersion } from '../adapters/deploy/scannerProbe';
import { traced, tracing } from '../adapters/telemetry/tracing';
import type { Logger } from '../log';
import type { ProbeOutcome } from '../scanner/probe';
import type { DeployProbeConfig, UncheckedProbe } from '../settings/deployHooks';

export interface DeployProbeParts {
  probe: () => Promise<ProbeOutcome>;
  /** What a probe that had no account to sweep does to the deployment (the deploy's `uncheckedProbe`). */
  unchecked: UncheckedProbe;
  hooks: Pick<CodeDeployHooks, 'report'>;
  log: Logger;
}

/** The hook's event: which deployment and which of its lifecycle hooks to answer. */
export interface HookEvent {
  DeploymentId?: unknown;
  LifecycleEventHookExecutionId?: unknown;
}

const executionOf = (event: HookEvent): HookExecution => {
  const { DeploymentId, LifecycleEventHookExecutionId } = event;
  if (typeof DeploymentId !== 'string' || typeof LifecycleEventHookExecutionId !== 'string') {
    throw new Error('not a CodeDeploy lifecycle hook event');
  }
  return { deploymentId: DeploymentId, lifecycleEventHookExecutionId: LifecycleEventHookExecutionId };
};

/**
 * Runs a hook's check and always reports it: a check that throws is a failed deployment (its error's name the reason),
 * never a hook left hanging. The probe's and the bake's one shape.
 */
export const reportedHook = async <T extends { passed: boolean }>(
  parts: { hooks: Pick<CodeDeployHooks, 'report'>; log: Logger },
  event: HookEvent,
  what: string,
  check: () => Promise<T>,
): Promise<T | { passed: false; reason: string }> => {
  const execution = executionOf(event);
  const outcome = await check().catch((error: unknown) => ({
    passed: false as const,
    reason: error instanceof Error ? error.name : `the ${what} failed`,
  }));
  // A pass that checked nothing (the probe's not-checked, let through by the setting) is said at warn, never info.
  const checked = !('status' in outcome) || outcome.status === 'passed';
  parts.log[outcome.passed ? (checked ? 'info' : 'warn') : 'error'](`${what} of the new scanner version`, {
    deployment_id: execution.deploymentId,
    ...outcome,
  });
  await parts.hooks.report(execution, outcome.passed ? 'Succeeded' : 'Failed');
  return outcome;
};

/** The hook's verdict: the probe passed, or it had no account to sweep and the deploy lets that through. */
const verdictOf = (outcome: ProbeOutcome, unchecked: UncheckedProbe) => ({
  ...outcome,
  passed: outcome.status === 'passed' || (outcome.status === 'not-checked' && unchecked === 'proceed'),
});

/** Runs the probe and always reports it. */
export const runDeployProbe = (parts: DeployProbeParts, event: HookEvent) =>
  reportedHook(parts, event, 'deploy probe', async () => verdictOf(await parts.probe(), parts.unchecked));

/** A hook process's one CodeDeploy client, and its X-Ray segment where the deploy turned tracing on. */
export const hookParts = (config: DeployProbeConfig, service: string) => ({
  hooks: new CodeDeployHooks(traced(new CodeDeployClient({ region: config.AWS_REGION }))),
  tracing: tracing(service, config.POWERTOOLS_TRACE_ENABLED === 'true'),
});

export const composeDeployProbe = (config: DeployProbeConfig, log: Logger) => {
  const lambda = traced(new LambdaClient({ region: config.AWS_REGION }));
  return {
    probe: () => probeScannerVersion(lambda, config.SCANNER_VERSION_ARN),
    unchecked: config.UNCHECKED_PROBE,
    ...hookParts(config, 'deploy-probe'),
    log,
  };
};
