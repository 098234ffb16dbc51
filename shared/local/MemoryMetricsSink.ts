// Owns npm start's metrics sink for monitors: the points a run would publish to CloudWatch, kept in this process
// (the latest 10,000) so a test, or a person at the console, reads what AWS would have received.
import type { MonitorRun } from '../monitors/monitor';
import { type MonitorPoint, monitorPoints } from '../monitors/monitorMetrics';
import type { MonitorTelemetry } from '../monitors/ports';

const MAX_POINTS = 10_000;

export class MemoryMetricsSink implements MonitorTelemetry {
  readonly points: (MonitorPoint & { at: number })[] = [];

  publishRun(run: MonitorRun): void {
    for (const point of monitorPoints(run)) this.points.push({ ...point, at: run.at });
    if (this.points.length > MAX_POINTS) this.points.splice(0, this.points.length - MAX_POINTS);
  }
}
