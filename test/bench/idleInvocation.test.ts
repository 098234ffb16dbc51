// The idle-cost meter of the stack-cost benchmark, smoke-sized: a scheduled invocation with nothing open reads the
// credential count and the open checks, takes and gives back its lease, emits the heartbeat and logs one line.
import { describe, expect, it } from 'vitest';
import { measureIdleInvocations } from '../../bench/idleInvocation';

describe('idle scheduled invocations, metered', () => {
  it('counts what each one costs: DynamoDB units, one secret read, the heartbeat metric, its log bytes', async () => {
    const idle = await measureIdleInvocations(2);
    expect(idle.runs).toBe(2);
    expect(idle.readUnits).toBeGreaterThan(0);
    expect(idle.writeUnits).toBeGreaterThan(0);
    // A fresh container per run reads the secret once (the item key, for the credential count).
    expect(idle.secretReads).toBe(1);
    expect(idle.metrics).toContain('ScannerHeartbeat[service]');
    expect(idle.logBytes).toBeGreaterThan(0);
    expect(idle.medianMs).toBeGreaterThan(0);
  });
});
