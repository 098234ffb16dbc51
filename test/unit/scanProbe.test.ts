// The new scanner version's deploy probe writes a lease of its own and gives it back, sweeps one account, and emits a
// heartbeat only when the sweep passed (not for one that had nothing to sweep); a held lease fails it without sweeping.
import { describe, expect, it } from 'vitest';
import { probeScanner } from '../../shared/composition/scanProbe';
import type { ProbeOutcome } from '../../shared/scanner/probe';

const rig = (outcome: ProbeOutcome | Error, free = true) => {
  const calls: string[] = [];
  return {
    calls,
    parts: {
      lease: {
        acquire: async (owner: string) => {
          calls.push(`acquire ${owner}`);
          return free;
        },
        release: async (owner: string) => void calls.push(`release ${owner}`),
      },
      sweep: async () => {
        calls.push('sweep');
        if (outcome instanceof Error) throw outcome;
        return outcome;
      },
      heartbeat: () => void calls.push('heartbeat'),
      now: () => 1000,
    },
  };
};

describe('the scanner deploy probe', () => {
  it('takes its lease, sweeps, beats and gives the lease back', async () => {
    const { parts, calls } = rig({ status: 'passed', account: 'a@mail.test', folders: 4, reason: 'swept' });
    expect(await probeScanner(parts, 'probe-1')).toMatchObject({
      status: 'passed',
      reason: 'lease written; swept; heartbeat sent',
    });
    expect(calls).toEqual(['acquire probe-1', 'sweep', 'heartbeat', 'release probe-1']);
  });

  it('sends no heartbeat for a failed sweep, and gives the lease back when the sweep throws', async () => {
    const failed = rig({ status: 'failed', account: 'a@mail.test', reason: 'no inbox folder found' });
    expect((await probeScanner(failed.parts, 'p')).status).toBe('failed');
    expect(failed.calls).toEqual(['acquire p', 'sweep', 'release p']);
    const unchecked = rig({ status: 'not-checked', reason: 'no account' });
    expect(await probeScanner(unchecked.parts, 'p')).toEqual({
      status: 'not-checked',
      reason: 'lease written; no account',
    });
    expect(unchecked.calls).toEqual(['acquire p', 'sweep', 'release p']);
    const thrown = rig(new Error('boom'));
    await expect(probeScanner(thrown.parts, 'p')).rejects.toThrow('boom');
    expect(thrown.calls).toEqual(['acquire p', 'sweep', 'release p']);
  });

  it('fails without sweeping when the probe lease is held', async () => {
    const { parts, calls } = rig({ status: 'passed', reason: 'listed' }, false);
    expect(await probeScanner(parts, 'p')).toEqual({
      status: 'failed',
      reason: 'the probe lease is held: another probe runs',
    });
    expect(calls).toEqual(['acquire p']);
  });
});
