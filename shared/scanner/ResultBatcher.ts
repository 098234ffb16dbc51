// Owns coalescing the results that one tick finds for the same check into one write. One message to 20 test
// mailboxes lands in all of them within milliseconds, and each account's sweep finds its copy in the same tick: one
// conditional write for all of them costs what a single one does, where 20 writes of a 3 KB item cost 60 units.

import type { DetectedCategory } from '../domain/categories';
import type { Clock } from '../domain/clock';
import type { PlacementDetails, RecordOutcome } from '../domain/ports';
import { startTimer, type Timer } from '../domain/timer';
import type { ResultStore } from './scannerPorts';

/** How long the first result of a check waits for others of the same tick. */
const BATCH_WINDOW_MS = 15;
/** Well inside DynamoDB's 4 KB expression limit: each account's result is one placeholder, whatever it holds. */
export const MAX_BATCH = 25;

interface Waiting {
  email: string;
  category: DetectedCategory;
  details: PlacementDetails;
  resolve(outcome: RecordOutcome): void;
  reject(error: unknown): void;
}

/** Closed checks remembered (the oldest forgotten first): a loop's first sight of 10 minutes of mail meets a few hundred. */
const MAX_CLOSED_REMEMBERED = 10_000;

export class ResultBatcher {
  /** Each check's batch being gathered, and the timer that writes it when its window ends. */
  private readonly open = new Map<string, { waiting: Waiting[]; timer: Timer }>();
  /**
   * Checks the store called closed (past their 5 minutes, or never stored here). Closed is final, so copies of them
   * found later (other accounts, other folders, a first sight of old mail) are answered without a write: each
   * refused conditional write is billed, and a fresh table's first sweeps over mailboxes full of finished checks'
   * copies cost one per copy and account where this costs one or two per check.
   */
  private readonly closed = new Set<string>();

  constructor(
    private readonly store: ResultStore,
    private readonly clock: Clock,
    /**
     * The accounts the scanner still waits for in a check, where it knows: a batch holding every one of them is
     * written at once, since nothing more of the check can join it (the copy that completes a check skips the window).
     */
    private readonly awaited: (checkId: string) => ReadonlySet<string> | undefined = () => undefined,
    private readonly windowMs = BATCH_WINDOW_MS,
  ) {}

  /** Resolves with this account's outcome once its batch (or, on a conflict, its own write) is done. */
  record(
    checkId: string,
    email: string,
    category: DetectedCategory,
    details: PlacementDetails = {},
  ): Promise<RecordOutcome> {
    if (this.closed.has(checkId)) return Promise.resolve('closed');
    if (!this.store.recordResults)
      return this.store
        .recordResult(checkId, email, category, this.clock.now(), details)
        .then((outcome) => this.noted(checkId, outcome));
    return new Promise((resolve, reject) => {
      let gathering = this.open.get(checkId);
      if (!gathering) {
        gathering = { waiting: [], timer: startTimer(this.windowMs, () => void this.flush(checkId)) };
        this.open.set(checkId, gathering);
      }
      const { waiting } = gathering;
      waiting.push({ email, category, details, resolve, reject });
      if (waiting.length >= MAX_BATCH || this.holdsAllAwaited(checkId, waiting)) void this.flush(checkId);
    });
  }

  private holdsAllAwaited(checkId: string, waiting: readonly Waiting[]): boolean {
    const awaited = this.awaited(checkId);
    if (!awaited || awaited.size === 0 || awaited.size > waiting.length) return false;
    for (const email of awaited) if (!waiting.some((entry) => entry.email === email)) return false;
    return true;
  }

  private async flush(checkId: string): Promise<void> {
    const gathering = this.open.get(checkId);
    if (!gathering) return;
    this.open.delete(checkId);
    gathering.timer.cancel();
    const { waiting } = gathering;
    // The first copy of each account goes in the batch; a second copy (the same message in two folders) can only
    // be already-recorded, and is written alone after.
    const seen = new Set<string>();
    const batch = waiting.filter((entry) => !seen.has(entry.email) && seen.add(entry.email));
    const rest = waiting.filter((entry) => !batch.includes(entry));
    const now = this.clock.now();
    let batched = false;
    if (batch.length > 1 && this.store.recordResults) {
      try {
        // All or nothing: refused when any of them is no longer pending (a rescan, another loop, a closed check).
        batched = await this.store.recordResults(checkId, batch, now);
      } catch (error) {
        for (const entry of waiting) entry.reject(error);
        return;
      }
    }
    if (batched) for (const entry of batch) entry.resolve('recorded');
    // Each alone, as without batching: the store's conditional write tells each account's outcome.
    for (const entry of batched ? rest : waiting) {
      // The first refusal that says closed answers for the rest of the check: no write could land any more.
      if (this.closed.has(checkId)) {
        entry.resolve('closed');
        continue;
      }
      try {
        const outcome = await this.store.recordResult(
          checkId,
          entry.email,
          entry.category,
          now,
          entry.details,
        );
        entry.resolve(this.noted(checkId, outcome));
      } catch (error) {
        entry.reject(error);
      }
    }
  }

  private noted(checkId: string, outcome: RecordOutcome): RecordOutcome {
    if (outcome !== 'closed') return outcome;
    this.closed.add(checkId);
    if (this.closed.size > MAX_CLOSED_REMEMBERED)
      this.closed.delete(this.closed.values().next().value as string);
    return outcome;
  }
}
