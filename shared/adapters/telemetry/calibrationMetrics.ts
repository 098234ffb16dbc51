// Owns the calibration's metrics on Lambda (CloudWatch EMF through Powertools, names from shared/telemetry/metrics.ts):
// each control copy as 1 in the inbox or 0 by provider, whose Average is the control inbox rate; per provider 1 when
// most of its seeds lost the control (ControlAstray, never per mailbox); the suspect count; a heartbeat per finished run.
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { ControlRun, SeedCalibration } from '../../calibration';
import { METRICS } from '../../telemetry/metrics';

export const emitCalibration = (
  metrics: Metrics,
  runs: readonly { run: ControlRun; entries: readonly SeedCalibration[] }[],
): void => {
  const inbox = METRICS.controlInbox;
  for (const { entries } of runs)
    for (const entry of entries)
      metrics
        .singleMetric()
        .addDimension(inbox.dimension, entry.provider)
        .addMetric(inbox.name, MetricUnit.Count, entry.placement === 'inbox' ? 1 : 0);
  const astray = METRICS.controlAstray;
  for (const { run } of runs)
    for (const provider of Object.keys(run.byProvider))
      metrics
        .singleMetric()
        .addDimension(astray.dimension, provider)
        .addMetric(astray.name, MetricUnit.Count, run.providerAstray.includes(provider) ? 1 : 0);
  const suspect = runs.reduce((sum, { run }) => sum + run.suspect.length, 0);
  metrics.singleMetric().addMetric(METRICS.suspectSeeds.name, MetricUnit.Count, suspect);
  // Every finished run, whatever its scopes did (a failed scope fails the invocation, which Errors counts): silence
  // means the schedule stopped or every run dies before its end.
  metrics.singleMetric().addMetric(METRICS.calibrationHeartbeat.name, MetricUnit.Count, 1);
};
