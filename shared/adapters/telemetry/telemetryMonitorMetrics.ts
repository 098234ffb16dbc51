// Owns a monitor run's metrics on AWS: the points of monitorPoints as CloudWatch EMF through Powertools, each a
// single metric with its own dimensions (the monitor, the provider), flushed with the function's other metrics.
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  judgementPoints,
  type MonitorPoint,
  type MonitorRun,
  type MonitorTelemetry,
  monitorPoints,
  type ProviderJudgement,
} from '../../monitors';

const emit = (metrics: Metrics, points: readonly MonitorPoint[]) => {
  for (const point of points) {
    const single = metrics.singleMetric();
    for (const [name, value] of Object.entries(point.dimensions)) single.addDimension(name, value);
    single.addMetric(point.spec.name, MetricUnit.Count, point.value);
  }
};

export const powertoolsMonitorTelemetry = (metrics: Metrics): MonitorTelemetry => ({
  publishRun: (run: MonitorRun) => emit(metrics, monitorPoints(run)),
  publishJudgements: (run: MonitorRun, judgements: readonly ProviderJudgement[]) =>
    emit(metrics, judgementPoints(run.monitor, judgements)),
});
