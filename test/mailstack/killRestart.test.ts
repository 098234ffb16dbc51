// A scanner process killed with SIGKILL mid-sweep and restarted, 20 times, while one message per check arrives:
// nothing is lost, nothing is counted twice, and every check completes. The long variant is bench/reliability.ts.
import { describe, expect, it } from 'vitest';
import { runKillScenario } from '../../scripts/lib/killRestart';

describe('a scanner killed and restarted during active checks', () => {
  it('loses nothing and doubles nothing over 20 SIGKILLs, and every check completes', async () => {
    const result = await runKillScenario({
      kills: 20,
      checks: 20,
      accounts: ['inbox', 'junk', 'trash', 'promo', 'archive'],
      intervalMs: 200,
      leaseTtlMs: 1000,
    });
    console.info(JSON.stringify({ test: 'kill -9 and restart', ...result }));
    expect(result.kills).toBe(20);
    expect(result.completeChecks).toBe(20);
    expect(result.results).toBe(20 * 5);
    expect(result.doubled).toBe(0);
    expect(result.inconsistentReads).toBe(0);
    expect(result.reads).toBeGreaterThan(0);
    // Some kills must have landed inside a sweep, or the test proved nothing about crashes mid-sweep.
    expect(result.killsMidSweep).toBeGreaterThan(0);
  }, 180_000);
});
