// Owns a delivery's turn on AWS: one attempt if it is due, then, while it stays queued, a message back on the
// retry queue for when it next falls due (SQS delays at most 15 minutes: a longer wait takes several turns).
import type { WebhookDelivery } from '../domain/webhook';
import { attemptDelivery, type DeliverDeps } from './deliverWebhook';

/** Where a delivery waits for its next turn. */
export interface RetryQueue {
  /** Hands the delivery back after `delayMs` (or the queue's longest delay, whichever is shorter). */
  schedule(checkId: string, delayMs: number): Promise<void>;
}

export const takeDeliveryTurn = async (
  deps: DeliverDeps & { retries: RetryQueue },
  checkId: string,
): Promise<WebhookDelivery | undefined> => {
  const delivery = await attemptDelivery(deps, checkId);
  if (delivery?.state === 'queued')
    await deps.retries.schedule(checkId, Math.max(0, delivery.dueAt - deps.clock.now()));
  return delivery;
};
