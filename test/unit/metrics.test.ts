// The scanner's events become CloudWatch EMF records whose names and dimensions come from the one metrics module.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics, scanMetrics } from '../../shared/adapters/telemetry/powertools';
import { METRICS, METRICS_NAMESPACE, SERVICE_DIMENSION } from '../../shared/telemetry/metrics';

interface Emf {
  _aws: {
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
  [key: string]: unknown;
}

const captureEmf = () => {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  return () =>
    lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.includes('"_aws"'))
      .map((line) => JSON.parse(line) as Emf);
};

afterEach(() => vi.restoreAllMocks());

describe('scan metrics', () => {
  it('emit placements by category and provider, latency, failures, active checks, a heartbeat and settled checks', () => {
    const records = captureEmf();
    const events = scanMetrics(createMetrics('scan'));
    const placement = {
      checkId: 'abcdefghijklmnopqrst',
      email: 'inbox@mail.test',
      provider: 'gmail',
      folder: 'INBOX',
      category: 'promotions' as const,
      deliveredAt: 1000,
      recordedAt: 1800,
      uid: 7,
      headers: Buffer.alloc(0),
      auth: {
        spf: 'pass',
        dkim: 'fail',
        dmarc: 'none',
        arc: null,
        authserv_id: 'mx.google.com',
        reasons: { spf: null, dkim: null, dmarc: null, arc: null },
      },
    };
    events.placed({ ...placement, outcome: 'recorded' });
    events.placed({ ...placement, outcome: 'already-recorded' });
    const sweep = {
      email: 'bad@mail.test',
      foldersRead: 0,
      messagesFetched: 0,
      placements: 0,
      durationMs: 40,
    };
    events.swept({ ...sweep, ok: false, consecutiveFailures: 3 });
    events.ticked({ activeChecks: 7, pendingAccounts: 9 });
    events.settled({ checkId: 'x', status: 'timeout', createdAt: 0 });
    events.flush();

    const emitted = records();
    for (const record of emitted) {
      for (const directive of record._aws.CloudWatchMetrics) {
        expect(directive.Namespace).toBe(METRICS_NAMESPACE);
        for (const dimensions of directive.Dimensions) expect(dimensions).toContain(SERVICE_DIMENSION);
      }
    }
    const emittedValue = (name: string, dimension?: [string, string]) =>
      emitted.find((record) => name in record && (!dimension || record[dimension[0]] === dimension[1]))?.[
        name
      ];
    expect(emittedValue(METRICS.messagesByCategory.name, ['Category', 'promotions'])).toBe(1);
    expect(emittedValue(METRICS.messagesByProvider.name, ['Provider', 'gmail'])).toBe(1);
    expect(emittedValue(METRICS.detectionLatency.name)).toBe(800);
    // Promotions is neither Inbox nor spam: 0, 0, 1, so the Average by provider is each rate.
    expect(emittedValue(METRICS.placedInbox.name, ['Provider', 'gmail'])).toBe(0);
    expect(emittedValue(METRICS.placedSpam.name, ['Provider', 'gmail'])).toBe(0);
    expect(emittedValue(METRICS.placedOther.name, ['Provider', 'gmail'])).toBe(1);
    expect(emittedValue(METRICS.authPass.name, ['Method', 'SPF'])).toBe(1);
    expect(emittedValue(METRICS.authFail.name, ['Method', 'DKIM'])).toBe(1);
    // none is neither a pass nor a failure.
    expect(emitted.filter((record) => record.Method === 'DMARC')).toEqual([]);
    expect(emitted.filter((record) => METRICS.authPass.name in record)).toHaveLength(1);
    expect(emittedValue(METRICS.imapFailures.name)).toBe(1);
    // Never a per-mailbox dimension: the address stays out of every metric record (it is in the logs).
    expect(JSON.stringify(emitted)).not.toContain('bad@mail.test');
    expect(emitted.filter((record) => 'Account' in record)).toEqual([]);
    expect(emittedValue(METRICS.consecutiveImapFailures.name)).toBe(3);
    expect(emittedValue(METRICS.sweepDuration.name)).toBe(40);
    expect(emittedValue(METRICS.activeChecks.name)).toBe(7);
    expect(emittedValue(METRICS.scannerHeartbeat.name)).toBe(1);
    expect(emittedValue(METRICS.checksTimedOut.name)).toBe(1);
    // The repeat of an already-recorded copy is not counted again.
    const categoryRecords = emitted.filter(
      (record) => METRICS.messagesByCategory.name in record && 'Category' in record,
    );
    expect(categoryRecords).toHaveLength(1);
  });
});
