// The monitor schedule's Lambda publishes under the stage's own metrics namespace (POWERTOOLS_METRICS_NAMESPACE, as
// every function of the stack), which is the one its heartbeat, drop alarm and dashboard read: a tick with no time
// left for a run still counts itself there, and touches nothing else.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { composeMonitorLambda } from '../../shared/composition/monitorLambda';
import { METRICS } from '../../shared/telemetry/metrics';

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('the monitor schedule Lambda', () => {
  it('counts its tick under the stage namespace', async () => {
    for (const [name, value] of Object.entries({
      TABLE_NAME: 'table',
      AWS_REGION: 'eu-west-1',
      SEALING_KEY_ARN: 'arn:aws:kms:eu-west-1:1:key/00000000-0000-0000-0000-000000000000',
      POWERTOOLS_METRICS_NAMESPACE: 'InboxPlacement/dev',
    }))
      vi.stubEnv(name, value);
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    // No time left for a run: the tick is counted and no monitor is read (no table is reachable here).
    await composeMonitorLambda().run(() => 0);
    const records = lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.startsWith('{"_aws"') || line.includes('"CloudWatchMetrics"'))
      .map(
        (line) =>
          JSON.parse(line) as {
            _aws: { CloudWatchMetrics: { Namespace: string; Metrics: { Name: string }[] }[] };
          },
      );
    const ticks = records.filter(
      (record) => record._aws.CloudWatchMetrics[0]?.Metrics[0]?.Name === METRICS.monitorScheduleTicks.name,
    );
    expect(ticks).toHaveLength(1);
    expect(ticks[0]?._aws.CloudWatchMetrics[0]?.Namespace).toBe('InboxPlacement/dev');
  });
});
