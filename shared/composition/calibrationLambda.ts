// Owns the calibration Lambda's wiring: settings read once, the control sender's secret read at the first run, and the
// run's metrics: the calibration's own, and each scope's control run as the calibration monitor's (the monitors'
// dashboard draws it beside theirs). The table's stream wakes the scanner for each control check, so none runs here.
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { createDocumentClient } from '../adapters/dynamo/client';
import { readControlSenderSecret } from '../adapters/smtp/controlSenderSecret';
import { emitCalibration } from '../adapters/telemetry/calibrationMetrics';
import { createMetrics } from '../adapters/telemetry/powertools';
import { powertoolsMonitorTelemetry } from '../adapters/telemetry/telemetryMonitorMetrics';
import { traced, tracing } from '../adapters/telemetry/tracing';
import { calibrate } from '../calibration';
import { loadCalibrationConfig } from '../config';
import { systemClock } from '../domain/clock';
import { createLambdaLogger, type Logger } from '../log';
import { SERVICES } from '../telemetry/metrics';
import { composeCalibration } from './calibration';

/** Some scope's calibration failed: the invocation fails, after every other scope's run was kept. */
class CalibrationFailed extends Error {
  constructor(failed: number, calibrated: number) {
    super(`calibration failed for ${failed} scope(s); ${calibrated} calibrated`);
    this.name = 'CalibrationFailed';
  }
}

type CalibrationOutcome = Awaited<ReturnType<typeof calibrate>>;

/**
 * What a finished run leaves: its metrics (the heartbeat among them, whatever its scopes did), a line per failed
 * scope and one for the runs; then a failed scope fails the invocation, so the function's Errors alarm sees it (the
 * other scopes' runs are kept).
 */
export const settleCalibration = (
  outcome: CalibrationOutcome,
  parts: { emit: (calibrated: CalibrationOutcome['calibrated']) => void; log: Logger },
) => {
  parts.emit(outcome.calibrated);
  for (const { scope, error } of outcome.failed) parts.log.error('calibration failed', { scope, error });
  const runs = outcome.calibrated.map(({ run }) => ({
    scope: run.scope,
    checkId: run.checkId,
    byProvider: run.byProvider,
    providerAstray: run.providerAstray,
    suspect: run.suspect.length,
  }));
  parts.log.info('calibrated', { runs });
  if (outcome.failed.length > 0)
    throw new CalibrationFailed(outcome.failed.length, outcome.calibrated.length);
  return { calibrated: runs.length, failed: 0 };
};

export const composeCalibrationLambda = () => {
  const config = loadCalibrationConfig();
  const log = createLambdaLogger(SERVICES.calibration, config.LOG_LEVEL);
  const metrics = createMetrics(SERVICES.calibration, config.POWERTOOLS_METRICS_NAMESPACE);
  // A monitor run's points carry the monitors' service, as the dashboard's search and the spec name it.
  const telemetry = powertoolsMonitorTelemetry(
    createMetrics(SERVICES.monitor, config.POWERTOOLS_METRICS_NAMESPACE),
  );
  const client = traced(
    createDocumentClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT }),
  );
  const secrets = traced(new SecretsManagerClient({ region: config.AWS_REGION }));
  return {
    log,
    tracing: tracing(SERVICES.calibration, config.POWERTOOLS_TRACE_ENABLED === 'true'),
    /** One calibration of every scope; the secret is read each run, so a rotated password is used at once. */
    run: async () => {
      const secret = await readControlSenderSecret(secrets, config.CONTROL_SENDER_SECRET_ID);
      const calibration = composeCalibration({
        client,
        tableName: config.TABLE_NAME,
        clock: systemClock,
        log,
        sender: {
          smtpUrl: secret.url,
          password: secret.password,
          from: config.CONTROL_FROM,
          option: 'the control sender secret',
        },
        telemetry,
      });
      try {
        return settleCalibration(await calibrate(calibration.deps), {
          emit: (calibrated) => emitCalibration(metrics, calibrated),
          log,
        });
      } finally {
        await calibration.close();
      }
    },
  };
};
