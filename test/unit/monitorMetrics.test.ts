// A monitor run's metrics as CloudWatch receives them (Powertools EMF on stdout): per provider the inbox, spam,
// missing and copies counts under the service, the monitor and the provider (no mailbox), and the audit score
// under the monitor only, when the run has one.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../shared/adapters/telemetry/powertools';
import { powertoolsMonitorTelemetry } from '../../shared/adapters/telemetry/telemetryMonitorMetrics';
import type { MonitorRun } from '../../shared/monitors/monitor';
import type { ProviderJudgement } from '../../shared/monitors/monitorAlarm';

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

  it('emits the judgement per provider as MonitorDrop, 1 on a drop or the message, else 0', () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const judgement = (provider: string, state: ProviderJudgement['state']): ProviderJudgement => ({
      provider,
      state,
      windowRuns: 3,
      runsHad: 6,
      window: null,
      baseline: null,
      control: null,
      pDrop: null,
      pControl: null,
      runIds: [],
      text: '',
    });
    powertoolsMonitorTelemetry(createMetrics('monitor')).publishJudgements(RUN, [
      judgement('gmail', 'drop'),
      judgement('yahoo', 'message'),
      judgement('outlook', 'ok'),
      judgement('icloud', 'waiting'),
    ]);
    const records = lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.startsWith('{'))
      .map(
        (line) =>
          JSON.parse(line) as Record<string, unknown> & {
            _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] };
          },
      );
    expect(records.map((r) => [r.Provider, r.MonitorDrop])).toEqual([
      ['gmail', 1],
      ['yahoo', 1],
      ['outlook', 0],
      ['icloud', 0],
    ]);
    for (const record of records) {
      expect(record.Monitor).toBe('welcome');
      expect(record._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service', 'Monitor', 'Provider']]);
    }
  });
});
