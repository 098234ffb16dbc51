// Owns Powertools metrics on Lambda: CloudWatch EMF, named only from shared/telemetry/metrics.ts (its Logger is
// shared/log.ts's).
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { placementClassOf } from '../../domain/categories';
import type { ScanEvents } from '../../scanner/Scanner';
import { METRICS, METRICS_NAMESPACE, type MetricKey } from '../../telemetry/metrics';

/** `namespace`: the stage's (POWERTOOLS_METRICS_NAMESPACE, validated in shared/config.ts). */
export const createMetrics = (service: string, namespace: string = METRICS_NAMESPACE): Metrics =>
  new Metrics({ namespace, serviceName: service });

const unitOf = (key: MetricKey) =>
  METRICS[key].unit === 'Milliseconds' ? MetricUnit.Milliseconds : MetricUnit.Count;

/** Adds one value of a metric; a metric with its own dimension goes out at once as its own EMF record. */
const emit = (metrics: Metrics, key: MetricKey, value: number, dimensionValue?: string): void => {
  const spec = METRICS[key];
  if ('dimension' in spec && dimensionValue !== undefined) {
    metrics
      .singleMetric()
      .addDimension(spec.dimension, dimensionValue)
      .addMetric(spec.name, unitOf(key), value);
    return;
  }
  metrics.addMetric(spec.name, unitOf(key), value);
};

/** Emits one value as its own EMF record at once, for short invocations that do not flush a buffer. */
export const emitNow = (metrics: Metrics, key: MetricKey, value: number): void => {
  metrics.singleMetric().addMetric(METRICS[key].name, unitOf(key), value);
};

const AUTH_METHODS = ['spf', 'dkim', 'dmarc'] as const;
/** RFC 8601 results that say the check failed; none, neutral, temperror and policy count as neither. */
const FAILED = new Set(['fail', 'softfail', 'permerror']);

/** The scanner's events as metrics; call flush() after each tick so a long loop does not sit on them. */
export const scanMetrics = (
  metrics: Metrics,
): Required<ScanEvents> & { flush(): void; consentRequired(email: string): void } => ({
  // Counts only: which mailbox is in the log line beside each (never a per-mailbox metric, shared/telemetry/metrics.ts).
  consentRequired: () => emit(metrics, 'consentRequired', 1),
  placed: (placement) => {
    if (placement.outcome !== 'recorded') return;
    emit(metrics, 'messagesByCategory', 1, placement.category);
    emit(metrics, 'messagesByProvider', 1, placement.provider);
    emit(metrics, 'detectionLatency', Math.max(0, placement.recordedAt - placement.deliveredAt));
    const landed = placementClassOf(placement.category);
    emit(metrics, 'placedInbox', landed === 'inbox' ? 1 : 0, placement.provider);
    emit(metrics, 'placedSpam', landed === 'spam' ? 1 : 0, placement.provider);
    emit(metrics, 'placedOther', landed === 'other' ? 1 : 0, placement.provider);
    for (const method of AUTH_METHODS) {
      const result = placement.auth?.[method];
      if (result === 'pass') emit(metrics, 'authPass', 1, method.toUpperCase());
      else if (result && FAILED.has(result)) emit(metrics, 'authFail', 1, method.toUpperCase());
    }
  },
  swept: (sweep) => {
    emit(metrics, 'sweepDuration', sweep.durationMs);
    if (!sweep.ok) {
      emit(metrics, 'imapFailures', 1);
      emit(metrics, 'consecutiveImapFailures', sweep.consecutiveFailures);
    }
  },
  ticked: ({ activeChecks }) => {
    emit(metrics, 'activeChecks', activeChecks);
    // Every tick, idle or not, so the heartbeat alarm sees a scanner that stopped (or never starts) as missing data.
    emit(metrics, 'scannerHeartbeat', 1);
  },
  probed: ({ unhealthyAccounts }) => emit(metrics, 'unhealthyAccounts', unhealthyAccounts),
  healthChanged: ({ state }) => {
    if (state === 'unhealthy') emit(metrics, 'accountsUnhealthy', 1);
  },
  skipped: () => emit(metrics, 'messagesSkipped', 1),
  // Not a metric of its own: a watch that fails leaves its account polled, which the sweep metrics show.
  watched: () => undefined,
  // Not a metric: one per message read would be a record per message; a slow one shows in the sweep's duration.
  parsed: () => undefined,
  settled: (check) => emit(metrics, check.status === 'complete' ? 'checksCompleted' : 'checksTimedOut', 1),
  flush: () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  },
});
