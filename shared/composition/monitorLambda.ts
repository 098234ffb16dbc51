// Owns the monitor schedule's Lambda wiring: settings read once, messages opened through the KMS key (never sealed
// here: the admin CLI seals them), CloudWatch for the runs and their judgement, and
// the same tick npm start's MonitorSchedule runs, stopped in time for a run under way to end before the deadline.
import { createDocumentClient } from '../adapters/dynamo/client';
import { createMetrics, emitNow } from '../adapters/telemetry/powertools';
import { powertoolsMonitorTelemetry } from '../adapters/telemetry/telemetryMonitorMetrics';
import { traced, tracing } from '../adapters/telemetry/tracing';
import { loadMonitorConfig } from '../config';
import { systemClock } from '../domain/clock';
import { ACTIVE_MS } from '../domain/limits';
import { MonitorSchedule } from '../local/MonitorSchedule';
import { createLambdaLogger } from '../log';
import { runMonitor } from '../monitors';
import { SERVICES } from '../telemetry/metrics';
import { composeMonitors } from './monitors';
import { kmsSealer } from './sealing';

/**
 * A run lasts its check's 5 minutes plus the send and the bookkeeping: no run starts with less than this left, so
 * none is cut by the timeout; a due monitor left over runs at the next schedule.
 */
const RUN_RESERVE_MS = ACTIVE_MS + 60_000;

export const composeMonitorLambda = () => {
  const config = loadMonitorConfig();
  const log = createLambdaLogger(SERVICES.monitor, config.LOG_LEVEL);
  // The stage's namespace, as every function's: the dashboard, the heartbeat and the drop alarm read that one only.
  const metrics = createMetrics(SERVICES.monitor, config.POWERTOOLS_METRICS_NAMESPACE);
  const client = traced(
    createDocumentClient({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT }),
  );
  const sealer = kmsSealer(config);
  const { deps } = composeMonitors({
    client,
    tableName: config.TABLE_NAME,
    clock: systemClock,
    log,
    sealer,
    telemetry: powertoolsMonitorTelemetry(metrics),
  });
  return {
    log,
    /** The X-Ray segment of each invocation, where the deploy turned tracing on. */
    tracing: tracing(SERVICES.monitor, config.POWERTOOLS_TRACE_ENABLED === 'true'),
    /** Every due monitor, one after another, until fewer than RUN_RESERVE_MS remain of the invocation. */
    run: async (remainingMs: () => number) => {
      emitNow(metrics, 'monitorScheduleTicks', 1);
      const schedule = new MonitorSchedule({
        monitors: deps.monitors,
        run: async (monitor) => {
          const outcome = await runMonitor(deps, monitor);
          if (remainingMs() < RUN_RESERVE_MS) await schedule.stop();
          return outcome;
        },
        clock: systemClock,
        log,
        tickMs: 0,
        print: (line) => log.info(line),
      });
      if (remainingMs() >= RUN_RESERVE_MS) await schedule.tick();
    },
  };
};
