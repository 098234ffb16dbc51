// `-c mailboxes=5000`: the scanner's reservation, its alarm and its dashboard line follow the 31 shards those mailboxes
// take at the default shard budget, and the outputs `accounts add` reads say the same.
import { beforeAll, describe, expect, it } from 'vitest';
import { ALARM_THRESHOLDS } from '../../infra/constructs/ServiceAlarms';
import { CAPACITY_OUTPUTS, INVOCATIONS_PER_SHARD } from '../../shared/scanner/scannerCapacity';
import {
  joinWithPlaceholders,
  logicalIdOf,
  propOf,
  resourcesOf,
  type SynthesizedApp,
  synthApp,
} from './synthApp';

const SHARDS = 31;

let built: SynthesizedApp;
beforeAll(() => {
  built = synthApp({ mailboxes: '5000' });
});

const alarmNamed = (suffix: string) =>
  Object.values(resourcesOf(built.serviceTemplate, 'AWS::CloudWatch::Alarm')).find((alarm) =>
    String(propOf(alarm, 'AlarmName')).endsWith(`-${suffix}`),
  );

describe('5,000 mailboxes', () => {
  it('reserves room for every shard, its hand-over and its minute kick', () => {
    expect(built.settings.plannedShards).toBe(SHARDS);
    const scanner = resourcesOf(built.serviceTemplate)[logicalIdOf(built.service.scanner)];
    const reserved = propOf<number>(scanner, 'ReservedConcurrentExecutions');
    expect(reserved).toBeGreaterThanOrEqual(INVOCATIONS_PER_SHARD * SHARDS);
    expect(reserved).toBe(95);
    const env = propOf<{ Variables: Record<string, string> }>(scanner, 'Environment').Variables;
    expect(env.SCAN_SHARD_SIZE).toBe('229');
  });

  it("alarms on concurrency above the shards' steady loops and kicks, below the reservation", () => {
    const threshold = propOf<number>(alarmNamed('ScannerConcurrency'), 'Threshold');
    expect(threshold).toBe(Math.ceil(95 * ALARM_THRESHOLDS.scannerConcurrencyShare));
    // 31 loops and 31 kicks a minute (plus wake-ups) are normal; the alarm fires before a throttle does.
    expect(threshold).toBeGreaterThan(2 * SHARDS + 2);
    expect(threshold).toBeLessThan(95);
  });

  it('draws the reservation and the alarm line on the dashboard', () => {
    const [dashboard] = Object.values(resourcesOf(built.serviceTemplate, 'AWS::CloudWatch::Dashboard'));
    const body = JSON.parse(joinWithPlaceholders(propOf(dashboard, 'DashboardBody'))) as {
      widgets: { properties: { title?: string; annotations?: { horizontal?: { value: number }[] } } }[];
    };
    const graph = body.widgets.find((widget) => widget.properties.title === 'Scanner concurrency');
    const lines = graph?.properties.annotations?.horizontal?.map((line) => line.value);
    expect(lines).toEqual([76, 95]);
  });

  it('publishes what accounts add checks against', () => {
    // On the data stack: the one stack the operator's documented policy may describe.
    const outputs = built.dataTemplate.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs[CAPACITY_OUTPUTS.reservation]?.Value).toBe('95');
    expect(outputs[CAPACITY_OUTPUTS.shardSize]?.Value).toBe('229');
  });

  it('refuses at synth a reservation that cannot hold them, with the numbers', () => {
    expect(() => synthApp({ mailboxes: '5000', scannerConcurrency: '10' })).toThrow(
      /must be at least 95 \(5000 mailboxes take 31 shard\(s\)/,
    );
  });
});
