// The sender audit's datapoints become CloudWatch EMF records: the names, the Provider and Rule dimensions and the
// namespace from the one metrics module, one record each.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emitAudit } from '../../shared/adapters/telemetry/auditMetricsEmf';
import { createMetrics } from '../../shared/adapters/telemetry/powertools';
import { METRICS, METRICS_NAMESPACE, SERVICE_DIMENSION } from '../../shared/telemetry/metrics';

interface Emf {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
  [key: string]: unknown;
}

afterEach(() => vi.restoreAllMocks());

describe('audit metrics as EMF', () => {
  it('one record per datapoint, dimensioned by provider and, for a rule, by its item', () => {
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    emitAudit(createMetrics('scan'), [
      { metric: 'auditListed', provider: 'gmail', value: 1 },
      { metric: 'auditRuleFailed', provider: 'gmail', rule: 'spf-pass', value: 0 },
      { metric: 'auditRuleFailed', provider: 'yahoo', rule: 'one-click-unsubscribe', value: 1 },
    ]);
    const records = lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line) as Emf);
    expect(records).toHaveLength(3);
    const seen = records.map((record) => {
      const [directive] = record._aws.CloudWatchMetrics;
      expect(directive?.Namespace).toBe(METRICS_NAMESPACE);
      const name = directive?.Metrics[0]?.Name ?? '';
      return {
        name,
        dimensions: [...(directive?.Dimensions[0] ?? [])].sort(),
        service: record[SERVICE_DIMENSION],
        provider: record.Provider,
        rule: record.Rule,
        value: record[name],
      };
    });
    expect(seen).toEqual([
      {
        name: METRICS.auditListed.name,
        dimensions: ['Provider', SERVICE_DIMENSION].sort(),
        service: 'scan',
        provider: 'gmail',
        rule: undefined,
        value: 1,
      },
      {
        name: METRICS.auditRuleFailed.name,
        dimensions: ['Provider', 'Rule', SERVICE_DIMENSION].sort(),
        service: 'scan',
        provider: 'gmail',
        rule: 'spf-pass',
        value: 0,
      },
      {
        name: METRICS.auditRuleFailed.name,
        dimensions: ['Provider', 'Rule', SERVICE_DIMENSION].sort(),
        service: 'scan',
        provider: 'yahoo',
        rule: 'one-click-unsubscribe',
        value: 1,
      },
    ]);
  });
});
