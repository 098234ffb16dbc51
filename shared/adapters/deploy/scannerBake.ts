// Owns the scanner's after-traffic bake: once its alias has moved, the new version must keep the heartbeat going and
// fail no invocation for a bake period before CodeDeploy hears Succeeded; a failure on the way ends it at once.
import { type CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import type { Clock } from '../../domain/clock';
import { METRICS, SERVICE_DIMENSION } from '../../telemetry/metrics';

export interface BakeReadings {
  /** Scanner ticks in the window (ScannerHeartbeat's Sum). */
  heartbeats: number;
  /** Failed invocations of the new version in the window. */
  errors: number;
}

export interface BakeDeps {
  read(fromMs: number, toMs: number): Promise<BakeReadings>;
  clock: Clock;
}

export interface BakeOptions {
  bakeMs: number;
  pollMs: number;
  /** When the hook must have answered (the invocation's own deadline, less a margin). */
  deadlineMs: number;
}

export type BakeOutcome = { passed: true; readings: BakeReadings } | { passed: false; reason: string };

/** Polls until the bake period is over; any error fails it at once, no heartbeat by its end fails it too. */
export const bakeScanner = async (deps: BakeDeps, options: BakeOptions): Promise<BakeOutcome> => {
  const from = deps.clock.now();
  const until = Math.min(from + options.bakeMs, options.deadlineMs);
  for (;;) {
    const now = deps.clock.now();
    const readings = await deps.read(from, now);
    if (readings.errors > 0)
      return { passed: false, reason: `the new version failed ${readings.errors} invocation(s)` };
    if (now >= until) {
      return readings.heartbeats > 0
        ? { passed: true, readings }
        : { passed: false, reason: `no scanner heartbeat in ${Math.round((now - from) / 1000)} s` };
    }
    await deps.clock.sleep(Math.min(options.pollMs, until - now));
  }
};

export interface ScannerMetricsTarget {
  namespace: string;
  functionName: string;
  alias: string;
  version: string;
}

const sumOf = (values: readonly number[] | undefined): number => (values ?? []).reduce((a, b) => a + b, 0);

/** The two readings from CloudWatch, a minute a point: the service's heartbeat and the version's Lambda errors. */
export const cloudWatchBakeReader =
  (client: Pick<CloudWatchClient, 'send'>, target: ScannerMetricsTarget) =>
  async (fromMs: number, toMs: number): Promise<BakeReadings> => {
    const stat = (namespace: string, name: string, dimensions: Record<string, string>) => ({
      Metric: {
        Namespace: namespace,
        MetricName: name,
        Dimensions: Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value })),
      },
      Period: 60,
      Stat: 'Sum',
    });
    const { MetricDataResults } = await client.send(
      new GetMetricDataCommand({
        // Whole minutes around the window: a point is stamped at its minute's start.
        StartTime: new Date(Math.floor(fromMs / 60_000) * 60_000),
        EndTime: new Date(Math.ceil(toMs / 60_000) * 60_000 + 60_000),
        MetricDataQueries: [
          {
            Id: 'heartbeat',
            MetricStat: stat(target.namespace, METRICS.scannerHeartbeat.name, {
              [SERVICE_DIMENSION]: METRICS.scannerHeartbeat.service,
            }),
          },
          {
            Id: 'errors',
            MetricStat: stat('AWS/Lambda', 'Errors', {
              FunctionName: target.functionName,
              Resource: `${target.functionName}:${target.alias}`,
              ExecutedVersion: target.version,
            }),
          },
        ],
      }),
    );
    const values = (id: string) => MetricDataResults?.find((result) => result.Id === id)?.Values;
    return { heartbeats: sumOf(values('heartbeat')), errors: sumOf(values('errors')) };
  };
