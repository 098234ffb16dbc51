// Owns the metric math the alarms and the dashboard share: sums in which a quiet series counts as 0, and a value that
// counts only once there is enough traffic behind it.
import type { Duration } from 'aws-cdk-lib';
import { type IMetric, MathExpression } from 'aws-cdk-lib/aws-cloudwatch';

/** The sum of several series, each missing one counting as 0, so one quiet series does not blank the total. */
export const sumOf = (name: string, metrics: IMetric[], period: Duration): MathExpression =>
  new MathExpression({
    expression: metrics.map((_, index) => `FILL(${name}${index}, 0)`).join(' + '),
    usingMetrics: Object.fromEntries(metrics.map((metric, index) => [`${name}${index}`, metric])),
    label: name,
    period,
  });

/**
 * The share of `part` in the sum of `whole` (ids of `metrics`) in each period, 0 in a period whose whole is under
 * `minimum`: a rate over a handful of events (one abandoned check, one failed request) says nothing, and must not
 * page anyone.
 */
export const shareWithVolume = (props: {
  metrics: Record<string, IMetric>;
  part: string;
  whole: string[];
  minimum: number;
  label: string;
  period: Duration;
}): MathExpression => {
  const whole = `(${props.whole.map((id) => `FILL(${id}, 0)`).join(' + ')})`;
  return new MathExpression({
    expression: `IF(${whole} >= ${props.minimum}, FILL(${props.part}, 0) / ${whole}, 0)`,
    usingMetrics: props.metrics,
    label: props.label,
    period: props.period,
  });
};

/** `value` in each period with at least `minimum` of `volume` behind it, else 0 (a percentile of a few requests). */
export const valueWithVolume = (props: {
  value: IMetric;
  volume: IMetric;
  minimum: number;
  label: string;
  period: Duration;
}): MathExpression =>
  new MathExpression({
    expression: `IF(FILL(volume, 0) >= ${props.minimum}, FILL(value, 0), 0)`,
    usingMetrics: { value: props.value, volume: props.volume },
    label: props.label,
    period: props.period,
  });
