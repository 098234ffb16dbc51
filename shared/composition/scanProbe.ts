// Owns the deploy probe as the new scanner version runs it: it must take and give back a lease of its own (the
// table written with this version's code and role), sweep one account, and emit a heartbeat, before traffic shifts.

import type { ProbeOutcome } from '../scanner/probe';
import type { ObservableLease } from '../scanner/scannerPorts';

/** The probe's own lease, never a shard's: it may run beside the live loops. */
export const PROBE_LEASE = 'deploy-probe';
const PROBE_LEASE_MS = 60_000;

export interface ScanProbeParts {
  lease: Pick<ObservableLease, 'acquire' | 'release'>;
  sweep(): Promise<ProbeOutcome>;
  /** One ScannerHeartbeat, flushed at once. */
  heartbeat(): void;
  now(): number;
}

export const probeScanner = async (parts: ScanProbeParts, owner: string): Promise<ProbeOutcome> => {
  if (!(await parts.lease.acquire(owner, parts.now(), PROBE_LEASE_MS)))
    return { status: 'failed', reason: 'the probe lease is held: another probe runs' };
  try {
    const outcome = await parts.sweep();
    // A beat says this version swept: not for a failed sweep, nor for one that had nothing to sweep.
    const beat = outcome.status === 'passed';
    if (beat) parts.heartbeat();
    return { ...outcome, reason: `lease written; ${outcome.reason}${beat ? '; heartbeat sent' : ''}` };
  } finally {
    await parts.lease.release(owner);
  }
};
