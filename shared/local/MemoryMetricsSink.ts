// Owns npm start's metrics sink for monitors: the points a run would publish to CloudWatch, kept in this process
// (the latest 10,000) so a test, or a person at the console, reads what AWS would have received.
import {
  judgementPoints,
  type MonitorPoint,
  type MonitorRun,
  type MonitorTelemetry,
  monitorPoints,
  type ProviderJudgement,
} from '../monitors';

const MAX_POINTS = 10_000;

export class MemoryMetricsSink implements MonitorTelemetry {
  readonly points: (MonitorPoint & { at: number })[] = [];

  publishRun(run: MonitorRun): void {
    this.keep(run, monitorPoints(run));
  }

  publishJudgements(run: MonitorRun, judgements: readonly ProviderJudgement[]): void {
    this.keep(run, judgementPoints(run.monitor, judgements));
  }

  private keep(run: MonitorRun, points: readonly MonitorPoint[]): void {
    for (const point of points) this.points.push({ ...point, at: run.at });
    if (this.points.length > MAX_POINTS) this.points.splice(0, this.points.length - MAX_POINTS);
  }
}
