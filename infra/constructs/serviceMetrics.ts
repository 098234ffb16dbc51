// Owns turning the service's metric specs (shared/telemetry/metrics.ts) into CloudWatch metrics for the dashboard and
// the alarms, so a name, namespace or dimension is never spelled twice.
import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { METRICS, type MetricKey, type MetricSpec, SERVICE_DIMENSION } from '../../shared/telemetry/metrics';

/** Metrics with only the `service` dimension: one series each, usable in alarms. */
export type PlainMetricKey = {
  [K in MetricKey]: (typeof METRICS)[K] extends { dimension: string } ? never : K;
}[MetricKey];

/** Metrics that also carry a dimension whose values are data (category, provider, account): found by SEARCH. */
export type DimensionedMetricKey = Exclude<MetricKey, PlainMetricKey>;

const serviceMetric = (namespace: string, key: PlainMetricKey, options: MetricOptions = {}): Metric => {
  const spec = METRICS[key];
  return new Metric({
    namespace,
    metricName: spec.name,
    dimensionsMap: { [SERVICE_DIMENSION]: spec.service },
    label: spec.description,
    period: Duration.minutes(5),
    ...options,
  });
};

/**
 * One series per value of the metric's own dimension, whatever values the code emits. A dashboard may use SEARCH;
 * an alarm may not, which is why the alarm on mailbox failures watches ImapConsecutiveFailures instead.
 */
const serviceSearch = (
  namespace: string,
  key: DimensionedMetricKey,
  statistic: string,
  period: Duration = Duration.minutes(5),
  narrow: {
    /** Only the series of this value of the first dimension (a name from the code, such as a provider preset). */
    only?: string;
    /** Said after each series' name (what a second statistic of the same series is). */
    suffix?: string;
  } = {},
): MathExpression => {
  const { only, suffix } = narrow;
  const spec: MetricSpec = METRICS[key];
  const dimensions = [spec.dimension, spec.secondDimension].filter((d) => d !== undefined);
  const schema = `{${[namespace, SERVICE_DIMENSION, ...dimensions].join(',')}}`;
  const filter = [
    `MetricName="${spec.name}" ${SERVICE_DIMENSION}="${spec.service}"`,
    ...(only === undefined ? [] : [`${spec.dimension}="${only}"`]),
  ].join(' ');
  // Each series is named after its own dimension value (a category, a provider, an address; a rule under a provider).
  const named = only === undefined ? dimensions : dimensions.slice(1);
  return new MathExpression({
    expression: `SEARCH('${schema} ${filter}', '${statistic}', ${period.toSeconds()})`,
    usingMetrics: {},
    label: [...named.map((d) => `\${PROP('Dim.${d}')}`), ...(suffix ? [suffix] : [])].join(' '),
    period,
  });
};

/** The service's metrics in one stage's namespace: every alarm and graph of a stack reads its own stage only. */
export interface ServiceMetrics {
  namespace: string;
  metric(key: PlainMetricKey, options?: MetricOptions): Metric;
  search(
    ...args: Parameters<typeof serviceSearch> extends [string, ...infer Rest] ? Rest : never
  ): MathExpression;
}

export const serviceMetricsIn = (namespace: string): ServiceMetrics => ({
  namespace,
  metric: (key, options) => serviceMetric(namespace, key, options),
  search: (...args) => serviceSearch(namespace, ...args),
});
