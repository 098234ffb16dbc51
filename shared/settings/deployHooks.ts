// Owns the deploy hooks' settings (the scanner's pre-traffic probe and after-traffic bake), read once at their start.
import * as z from 'zod/mini';
import { logLevel, metricsNamespace, traceEnabled } from './commonSettings';
import { intSetting, nonEmpty, parseEnv } from './envSchema';

/** Whether a deploy probe that had no account to sweep lets the deployment proceed (infra's `uncheckedProbe`). */
export const UNCHECKED_PROBE_CHOICES = ['proceed', 'block'] as const;
export type UncheckedProbe = (typeof UNCHECKED_PROBE_CHOICES)[number];
export const DEFAULT_UNCHECKED_PROBE: UncheckedProbe = 'proceed';
const uncheckedProbe = z._default(z.enum(UNCHECKED_PROBE_CHOICES), DEFAULT_UNCHECKED_PROBE);

/** The deploy probe hook: which scanner version it checks (the CodeDeploy client finds the role's credentials). */
const deployProbeEnv = z.object({
  AWS_REGION: nonEmpty(),
  LOG_LEVEL: logLevel,
  POWERTOOLS_TRACE_ENABLED: traceEnabled,
  /** The scanner version a deployment is about to move the alias to. */
  SCANNER_VERSION_ARN: nonEmpty(),
  /** What a probe with no account to sweep (not checked) does: the deployment proceeds, or it is blocked. */
  UNCHECKED_PROBE: uncheckedProbe,
});

export type DeployProbeConfig = z.infer<typeof deployProbeEnv>;

/** The after-traffic bake hook: the probe's settings, where the heartbeat is, and how long the bake lasts. */
const deployBakeEnv = z.extend(deployProbeEnv, {
  POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
  /** The live alias the scanner's callers invoke, whose errors of the new version the bake reads. */
  LIVE_ALIAS_NAME: nonEmpty(),
  /** The bake: 1 to 12 minutes (the hook is a Lambda of 15 minutes at most). */
  BAKE_MS: intSetting(60_000, 720_000, 600_000),
});

export type DeployBakeConfig = z.infer<typeof deployBakeEnv>;

export const loadDeployBakeConfig = (env: NodeJS.ProcessEnv = process.env): DeployBakeConfig =>
  parseEnv(deployBakeEnv, env);

export const loadDeployProbeConfig = (env: NodeJS.ProcessEnv = process.env): DeployProbeConfig =>
  parseEnv(deployProbeEnv, env);
