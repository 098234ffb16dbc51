// Owns the scanner's after-traffic hook wiring: CodeDeploy calls it once the alias has moved; it bakes the new version
// (heartbeat kept, no error) and reports Succeeded or Failed, so a bad version is rolled back, not left running.
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { CodeDeployHooks } from '../adapters/deploy/codeDeployHooks';
import { type BakeOutcome, bakeScanner, cloudWatchBakeReader } from '../adapters/deploy/scannerBake';
import { traced } from '../adapters/telemetry/tracing';
import { systemClock } from '../domain/clock';
import type { Logger } from '../log';
import type { DeployBakeConfig } from '../settings/deployHooks';
import { type HookEvent, hookParts, reportedHook } from './deployProbe';

export interface DeployBakeParts {
  bake: (deadlineMs: number) => Promise<BakeOutcome>;
  hooks: Pick<CodeDeployHooks, 'report'>;
  log: Logger;
}

/** `arn:…:function:name:version` → its name and version. */
const versionOf = (arn: string): { functionName: string; version: string } => {
  const parts = arn.split(':');
  const [functionName, version] = [parts.at(-2), parts.at(-1)];
  if (!functionName || !version || !/^\d+$/.test(version))
    throw new Error('SCANNER_VERSION_ARN names no version');
  return { functionName, version };
};

/** Bakes and always reports: a bake that throws is a failed deployment, never a hook left hanging. */
export const runDeployBake = (
  parts: DeployBakeParts,
  event: HookEvent,
  deadlineMs: number,
): Promise<BakeOutcome> => reportedHook(parts, event, 'bake', () => parts.bake(deadlineMs));

export const composeDeployBake = (config: DeployBakeConfig, log: Logger) => {
  const target = {
    namespace: config.POWERTOOLS_METRICS_NAMESPACE,
    alias: config.LIVE_ALIAS_NAME,
    ...versionOf(config.SCANNER_VERSION_ARN),
  };
  const read = cloudWatchBakeReader(traced(new CloudWatchClient({ region: config.AWS_REGION })), target);
  return {
    bake: (deadlineMs: number) =>
      bakeScanner({ read, clock: systemClock }, { bakeMs: config.BAKE_MS, pollMs: 60_000, deadlineMs }),
    ...hookParts(config, 'deploy-bake'),
    log,
  };
};
