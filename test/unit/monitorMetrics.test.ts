// A monitor run's metrics as CloudWatch receives them (Powertools EMF on stdout): per provider the inbox, spam,
// missing and copies counts under the service, the monitor and the provider (no mailbox), and the audit score
// under the monitor only, when the run has one.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { powertoolsMonitorTelemetry } from '../../shared/adapters/telemetry/monitorMetrics';
import { createMetrics } from '../../shared/adapters/telemetry/powertools';
import type { MonitorRun } from '../../shared/monitors/monitor';

const RUN: MonitorRun = {
  scope: 'default',
  monitor: 'welcome',
  checkId: 'abcdefghijklmnopqrst',
  at: Date.UTC(2026, 11, 1),
  byProvider: { gmail: { inbox: 2, spam: 1, other: 0, missing: 0, total: 3 } },
  auditScore: 8,
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('monitor metrics on AWS', () => {
  it('emits each count under the monitor and the provider, the audit score under the monitor', () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    powertoolsMonitorTelemetry(createMetrics('monitor')).publishRun(RUN);
    const records = lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.startsWith('{'))
      .map(
        (line) =>
          JSON.parse(line) as Record<string, unknown> & {
            _aws: { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
          },
      );
    const byName = new Map(records.map((r) => [r._aws.CloudWatchMetrics[0]?.Metrics[0]?.Name, r]));
    expect([...byName.keys()].sort()).toEqual([
      'MonitorAuditScore',
      'MonitorCopies',
      'MonitorInbox',
      'MonitorMissing',
      'MonitorSpam',
    ]);
    expect(byName.get('MonitorInbox')).toMatchObject({
      Monitor: 'welcome',
      Provider: 'gmail',
      MonitorInbox: 2,
    });
    expect(byName.get('MonitorInbox')?._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([
      ['service', 'Monitor', 'Provider'],
    ]);
    expect(byName.get('MonitorAuditScore')?._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([
      ['service', 'Monitor'],
    ]);
  });
});
