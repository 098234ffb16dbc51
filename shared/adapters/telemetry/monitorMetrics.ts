// Owns a monitor run's metrics on AWS: the points of monitorPoints as CloudWatch EMF through Powertools, each a
// single metric with its own dimensions (the monitor, the provider), flushed with the function's other metrics.
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MonitorRun } from '../../monitors/monitor';
import { monitorPoints } from '../../monitors/monitorMetrics';
import type { MonitorTelemetry } from '../../monitors/ports';

export const powertoolsMonitorTelemetry = (metrics: Metrics): MonitorTelemetry => ({
  publishRun: (run: MonitorRun) => {
    for (const point of monitorPoints(run)) {
      const single = metrics.singleMetric();
      for (const [name, value] of Object.entries(point.dimensions)) single.addDimension(name, value);
      single.addMetric(point.spec.name, MetricUnit.Count, point.value);
    }
  },
});
