// Owns waiting a little for the sender audit when a check settles before its audit is stored (a one-seed check
// settles on its first copy, which is when the audit starts): the report is read again until the audit is no
// longer pending or the wait is over, then shown as it stands, pending said plainly.

import type { InboxPlacementClient, PlacementReport } from '../../client';
import { sleep } from '../../domain/timer';

export interface AuditWait {
  /** How long after the first read the CLI keeps asking. */
  waitMs: number;
  intervalMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** The service stores the audit within seconds of the first copy; past this the CLI shows it as pending. */
const AUDIT_WAIT = { waitMs: 6000, intervalMs: 500 } as const;

export const awaitAudit = async (
  first: PlacementReport,
  /** Undefined where a read failed: the last report is then shown as it stands. */
  read: () => Promise<PlacementReport | undefined>,
  wait: AuditWait,
): Promise<PlacementReport> => {
  let report = first;
  const deadline = wait.now() + wait.waitMs;
  // Bounded by reads as well as by the clock, so a clock that does not move cannot hold the CLI.
  const reads = Math.ceil(wait.waitMs / wait.intervalMs);
  for (let read_ = 0; read_ < reads && report.audit?.state === 'pending'; read_++) {
    const left = deadline - wait.now();
    if (left <= 0) break;
    await wait.sleep(Math.min(wait.intervalMs, left));
    const again = await read();
    if (again === undefined) break;
    report = again;
  }
  return report;
};

/** The report, read again while its audit is pending; a failed re-read keeps the report already read. */
export const readReportAndAudit = async (
  client: Pick<InboxPlacementClient, 'getReport'>,
  checkId: string,
  signal: AbortSignal | undefined,
): Promise<PlacementReport> => {
  const again = () =>
    client.getReport(checkId, { signal }).catch((error: unknown) => {
      if (signal?.aborted) throw error;
      return undefined;
    });
  return awaitAudit(await client.getReport(checkId, { signal }), again, {
    ...AUDIT_WAIT,
    now: Date.now,
    sleep: async (ms) => {
      await sleep(ms, signal);
      signal?.throwIfAborted();
    },
  });
};
