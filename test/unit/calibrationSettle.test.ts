// A finished calibration run on Lambda: its heartbeat is emitted whatever its scopes did, each failed scope is logged,
// and a failed scope then fails the invocation (so the function's Errors alarm sees it); a clean run returns.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emitCalibration } from '../../shared/adapters/telemetry/calibrationMetrics';
import { createMetrics } from '../../shared/adapters/telemetry/powertools';
import { settleCalibration } from '../../shared/composition/calibrationLambda';
import { createLogger } from '../../shared/log';
import { METRICS } from '../../shared/telemetry/metrics';

const settle = (failed: { scope: string; error: string }[]) => {
  const out: string[] = [];
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
  const metrics = createMetrics('calibration');
  const run = () =>
    settleCalibration(
      { calibrated: [], failed },
      {
        emit: (calibrated) => emitCalibration(metrics, calibrated),
        log: createLogger('calibration', 'info', (line) => lines.push(line)),
      },
    );
  const heartbeats = () =>
    out
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.includes(`"${METRICS.calibrationHeartbeat.name}"`));
  return { run, heartbeats, lines };
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('settling a calibration run', () => {
  it('beats and fails the invocation when a scope failed, naming how many', () => {
    const { run, heartbeats, lines } = settle([{ scope: 'eu', error: 'the control sender refused' }]);
    expect(run).toThrow(/^calibration failed for 1 scope\(s\); 0 calibrated$/);
    expect(heartbeats()).toHaveLength(1);
    expect(lines.join('\n')).toMatch(/"message":"calibration failed".*"scope":"eu"/);
  });

  it('beats and returns when every scope calibrated', () => {
    const { run, heartbeats } = settle([]);
    expect(run()).toEqual({ calibrated: 0, failed: 0 });
    expect(heartbeats()).toHaveLength(1);
  });
});
