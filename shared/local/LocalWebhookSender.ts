// Owns npm start's webhook sender: the queue is the deliveries in the local store (so a restart loses none), read
// back when it starts; deliveries run on the injected clock, each due one at once when the scanner queues it.
import type { WebhookDelivery } from '../webhooks';
import { attemptDelivery, type DeliverDeps } from '../webhooks';

/** Attempts under way at once: a receiver that hangs holds one for its 10 s at most. */
const AT_ONCE = 8;

const abortedOf = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

export class LocalWebhookSender {
  /** Check id to when its delivery is due. */
  private readonly due = new Map<string, number>();
  private readonly busy = new Set<string>();
  private readonly stopper = new AbortController();
  private nap = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly deps: DeliverDeps) {}

  /** Reads the queued deliveries back from the store, then runs them as they fall due. */
  async start(): Promise<void> {
    for (const delivery of await this.deps.deliveries.queued()) this.track(delivery);
    this.running = this.loop();
  }

  /** A delivery was just queued: look at it now. */
  kick(checkId: string): void {
    if (!this.due.has(checkId)) this.due.set(checkId, Number.NEGATIVE_INFINITY);
    this.nap.abort();
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.nap.abort();
    await this.running;
  }

  private track(delivery: WebhookDelivery | undefined): void {
    if (delivery?.state === 'queued') this.due.set(delivery.checkId, delivery.dueAt);
    else if (delivery) this.due.delete(delivery.checkId);
  }

  private async loop(): Promise<void> {
    const attempts = new Set<Promise<void>>();
    while (!this.stopper.signal.aborted) {
      this.nap = new AbortController();
      const now = this.deps.clock.now();
      for (const [checkId, dueAt] of this.due) {
        if (dueAt > now || this.busy.has(checkId) || this.busy.size >= AT_ONCE) continue;
        this.busy.add(checkId);
        const attempt = this.attempt(checkId).finally(() => {
          this.busy.delete(checkId);
          attempts.delete(attempt);
          this.nap.abort();
        });
        attempts.add(attempt);
      }
      const waiting = [...this.due.entries()].filter(([checkId]) => !this.busy.has(checkId));
      // Idle, or while attempts run, only a kick or an attempt's end wakes it: deliveries are queued in this process,
      // each with a kick, and a sleep on a test's clock would move it.
      if (waiting.length === 0 || this.busy.size > 0) await abortedOf(this.nap.signal);
      else if (!this.nap.signal.aborted) {
        const next = Math.min(...waiting.map(([, dueAt]) => dueAt));
        await this.deps.clock.sleep(Math.max(0, next - now), this.nap.signal);
      }
    }
    await Promise.all(attempts);
  }

  private async attempt(checkId: string): Promise<void> {
    try {
      const delivery = await attemptDelivery(this.deps, checkId);
      if (delivery) this.track(delivery);
      else this.due.delete(checkId);
    } catch (error) {
      // The store failed: the delivery stays queued there and is tried again after a nap.
      this.deps.log.warn('webhook attempt failed to run', { check_id: checkId, error });
      this.due.set(checkId, this.deps.clock.now() + 5000);
    }
  }
}
