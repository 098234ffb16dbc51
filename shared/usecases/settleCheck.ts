// Owns settling checks: when one has ended (the domain's complete/timeout rule, applied here and nowhere else in the
// scanner's path) and queuing its webhook, before the write that settles it; the store only makes conditional writes.
import type { DetectedCategory } from '../domain/categories';
import { type Check, type CheckCounts, statusFromCounts } from '../domain/check';
import { RETENTION_MS } from '../domain/limits';
import type { PlacementDetails, RecordOutcome } from '../domain/ports';
import type { ActiveChecks, ResultEntry, ResultStore, SettledCheck } from '../scanner/scannerPorts';
import { newDelivery, type WebhookDelivery } from '../webhooks';

/** An unsettled check as the open-checks index holds it. */
export interface UnsettledCheck extends CheckCounts {
  checkId: string;
  /** It was started with a callback URL: settling queues its webhook. */
  hasCallbackUrl: boolean;
}

/** What settling needs of the check store: each write conditional, so two scanners never settle a check twice. */
export interface SettlementStore extends Pick<ActiveChecks, 'listActive'> {
  /** As ResultStore.recordResult, with the check's counts after the write when it was recorded. */
  recordResult(
    checkId: string,
    email: string,
    category: DetectedCategory,
    now: number,
    details?: PlacementDetails,
  ): Promise<{ outcome: RecordOutcome; counts?: CheckCounts }>;
  /** As ResultStore.recordResults, with the check's counts after the write; undefined: nothing written. */
  recordResults(
    checkId: string,
    entries: readonly ResultEntry[],
    now: number,
  ): Promise<CheckCounts | undefined>;
  /** The unsettled checks created at or after `since`, page by page. */
  unsettled(since: number): AsyncIterable<UnsettledCheck[]>;
  /** The check while it is unsettled (read consistently); undefined once settled or gone. */
  unsettledCheck(checkId: string): Promise<Check | undefined>;
  /** Settles each check once (a conditional write each); the ids this call settled. */
  markSettled(checks: readonly Pick<SettledCheck, 'checkId' | 'status'>[], now: number): Promise<Set<string>>;
}

/** Where a new delivery is put once, keyed by its check (a delivery already there is kept). */
export interface WebhookQueue {
  enqueue(delivery: WebhookDelivery): Promise<void>;
}

export interface SettleCheckDeps {
  store: SettlementStore;
  queue: WebhookQueue;
  /** Told of each webhook delivery queued (npm start's sender runs it at once; on AWS the table's stream does). */
  onQueued?: ((checkId: string) => void) | undefined;
}

/** The checks the scanner lists, records results to and settles, with each ended check's webhook queued once. */
export const settleCheck = ({
  store,
  queue,
  onQueued,
}: SettleCheckDeps): ActiveChecks & Required<ResultStore> => {
  /** Queues the check's delivery when it has a callback URL and is unsettled; true when one is queued. */
  const queueWebhook = async (checkId: string, now: number): Promise<boolean> => {
    const check = await store.unsettledCheck(checkId);
    if (!check?.callback) return false;
    await queue.enqueue(newDelivery(check, check.callback, now));
    return true;
  };

  /** A result write that completed its check queues the webhook now, not at settling. */
  const afterWrite = async (checkId: string, counts: CheckCounts | undefined, now: number) => {
    if (!counts || statusFromCounts(counts, now) !== 'complete') return;
    // Settling queues it too (the put is conditional): a failure here only delays it until then.
    if (await queueWebhook(checkId, now).catch(() => false)) onQueued?.(checkId);
  };

  return {
    listActive: (now, since, onPage) => store.listActive(now, since, onPage),

    async recordResult(checkId, email, category, now, details) {
      const { outcome, counts } = await store.recordResult(checkId, email, category, now, details);
      await afterWrite(checkId, counts, now);
      return outcome;
    },

    async recordResults(checkId, entries, now) {
      const counts = await store.recordResults(checkId, entries, now);
      await afterWrite(checkId, counts, now);
      return counts !== undefined;
    },

    async settle(now) {
      const ended: (SettledCheck & { hasCallbackUrl: boolean })[] = [];
      for await (const page of store.unsettled(now - RETENTION_MS))
        for (const check of page) {
          const status = statusFromCounts(check, now);
          if (status === 'pending') continue;
          ended.push({
            checkId: check.checkId,
            createdAt: check.createdAt,
            status,
            hasCallbackUrl: check.hasCallbackUrl,
          });
        }
      // Each webhook is queued before its check is settled: a failure between the two leaves the check open, and the
      // next settling finds the delivery already there.
      const queued = new Set<string>();
      for (const check of ended)
        if (check.hasCallbackUrl && (await queueWebhook(check.checkId, now))) queued.add(check.checkId);
      const settledNow = await store.markSettled(ended, now);
      for (const checkId of queued) if (settledNow.has(checkId)) onQueued?.(checkId);
      return ended
        .filter((check) => settledNow.has(check.checkId))
        .map(({ checkId, createdAt, status }) => ({ checkId, createdAt, status }));
    },
  };
};
