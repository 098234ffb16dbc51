// Owns what one monitor run publishes: per provider its inbox, spam, missing and copies counts under the monitor
// and the provider (never a mailbox: CloudWatch bills each dimension set), and the audit score under the monitor.
// Both sinks (CloudWatch through Powertools, npm start's in-process one) publish exactly these points.
import { METRICS, type MetricSpec } from '../telemetry/metrics';
import type { MonitorRun } from './monitor';
import { isAlarm, type ProviderJudgement } from './monitorAlarm';

export interface MonitorPoint {
  spec: MetricSpec;
  dimensions: Record<string, string>;
  value: number;
}

export const monitorPoints = (run: MonitorRun): MonitorPoint[] => {
  const points: MonitorPoint[] = [];
  for (const [provider, counts] of Object.entries(run.byProvider)) {
    const dimensions = { Monitor: run.monitor, Provider: provider };
    points.push(
      { spec: METRICS.monitorInbox, dimensions, value: counts.inbox },
      { spec: METRICS.monitorSpam, dimensions, value: counts.spam },
      { spec: METRICS.monitorMissing, dimensions, value: counts.missing },
      { spec: METRICS.monitorCopies, dimensions, value: counts.total },
    );
  }
  if (run.auditScore !== null)
    points.push({
      spec: METRICS.monitorAuditScore,
      dimensions: { Monitor: run.monitor },
      value: run.auditScore,
    });
  return points;
};

/** The alarm's judgement of a run, per provider: 1 on a drop or a message problem, else 0 (the alarm's input). */
export const judgementPoints = (monitor: string, judgements: readonly ProviderJudgement[]): MonitorPoint[] =>
  judgements.map((judgement) => ({
    spec: METRICS.monitorDrop,
    dimensions: { Monitor: monitor, Provider: judgement.provider },
    value: isAlarm(judgement) ? 1 : 0,
  }));
