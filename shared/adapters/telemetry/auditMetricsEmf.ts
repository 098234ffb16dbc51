// Owns the sender audit's metrics on Lambda (CloudWatch EMF through Powertools, names from shared/telemetry/metrics.ts):
// one record per datapoint of an audited check, each with its provider (and rule item) as dimensions.
import { type Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { AuditDatapoint } from '../../audit';
import { METRICS } from '../../telemetry/metrics';

/** Each datapoint goes out at once as its own record: the audit runs beside the loop, not inside its flush. */
export const emitAudit = (metrics: Metrics, points: readonly AuditDatapoint[]): void => {
  for (const point of points) {
    const spec = METRICS[point.metric];
    const record = metrics.singleMetric().addDimension(spec.dimension, point.provider);
    if (point.metric === 'auditRuleFailed')
      record.addDimension(METRICS.auditRuleFailed.secondDimension, point.rule);
    record.addMetric(spec.name, MetricUnit.Count, point.value);
  }
};
