// Owns recording what a sweep found: placements through the ResultBatcher, account health, and the metrics events.

import { DEFAULT_UNHEALTHY_AFTER } from '../domain/account';
import type { Clock } from '../domain/clock';
import type { RecordOutcome } from '../domain/ports';
import type { Logger } from '../log';
import { type AttributedCopy, disagrees } from './attributing';
import { ResultBatcher } from './ResultBatcher';
import type { ScanEvents, SkipReason } from './scanHooks';
import type { AccountHealthStore, ResultStore } from './scannerPorts';

export interface RecorderDeps {
  checks: ResultStore;
  health?: AccountHealthStore;
  unhealthyAfter?: number;
  clock: Clock;
  log: Logger;
  events?: ScanEvents;
  /** The accounts the scanner still waits for in a check, where it knows (ActiveCheckPlan.awaited). */
  awaited?: (checkId: string) => ReadonlySet<string> | undefined;
}

export class Recorder {
  private readonly results: ResultBatcher;

  constructor(private readonly deps: RecorderDeps) {
    this.results = new ResultBatcher(deps.checks, deps.clock, deps.awaited);
  }

  /**
   * A message stepped over unread: the server did not hand it over within a fetch's deadline even alone
   * (`deadline`), or its header block is over MAX_HEADER_BYTES (`too-large`). Named by UID, never its content.
   */
  skipped(email: string, path: string, uid: number, reason: SkipReason): void {
    this.deps.log.warn('skipped a message it could not read', { account: email, folder: path, uid, reason });
    this.deps.events?.skipped?.({ email, path, uid, reason });
  }

  /** Records one attributed copy, once per check and account; returns the store's outcome. */
  async placement(copy: AttributedCopy, email: string, path: string): Promise<RecordOutcome> {
    const { checkId, category, verdict, evidence } = copy;
    if (verdict && disagrees(verdict, category)) {
      // The folder decides the category; a mismatch with Outlook's own stamp is worth a look, not a correction.
      this.deps.log.warn('provider verdict disagrees with the folder', {
        check_id: checkId,
        account: email,
        folder: path,
        category,
        verdict,
      });
    }
    return this.results.record(checkId, email, category, {
      folder: path,
      providerVerdict: verdict,
      ...evidence,
    });
  }

  /** Tells the events of a copy recorded (or found recorded) by `placement`. */
  placed(
    { checkId, message, category, verdict, evidence }: AttributedCopy,
    { email, provider }: { email: string; provider: string },
    path: string,
    outcome: RecordOutcome,
  ): void {
    this.deps.log.debug('result recorded', {
      check_id: checkId,
      account: email,
      folder: path,
      category,
      outcome,
    });
    this.deps.events?.placed?.({
      checkId,
      email,
      provider,
      folder: path,
      category,
      outcome,
      deliveredAt: message.internalDate,
      recordedAt: this.deps.clock.now(),
      ...(verdict ? { providerVerdict: verdict } : {}),
      ...(evidence ? { auth: evidence.auth } : {}),
      uid: message.uid,
      headers: message.headers,
    });
  }

  /**
   * Records each of a folder's copies, once per check and account, telling `done` of each outcome (the plan's
   * bookkeeping) before the events; returns how many there were.
   */
  async all(
    copies: readonly AttributedCopy[],
    account: { email: string; provider: string },
    path: string,
    done: (checkId: string, outcome: RecordOutcome) => void,
  ): Promise<number> {
    for (const copy of copies) {
      const outcome = await this.placement(copy, account.email, path);
      done(copy.checkId, outcome);
      this.placed(copy, account, path, outcome);
    }
    return copies.length;
  }

  /** Clears an account's failures on record after a success; only called when there is something to clear. */
  async success(email: string): Promise<void> {
    if (!this.deps.health) return;
    if (await this.deps.health.recordSuccess(email).catch(() => false)) {
      this.deps.log.info('account sweeps work again', { account: email });
      this.deps.events?.healthChanged?.({ email, state: 'recovered' });
    }
  }

  /** Logs a failed sweep and counts it; the account leaves new checks after `unhealthyAfter` in a row. */
  async failure(email: string, error: unknown, failures: number): Promise<void> {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    // Never the credentials: only the account and what went wrong.
    this.deps.log.warn('account sweep failed', {
      account: email,
      failures,
      error: message,
      code: (error as { code?: unknown }).code,
    });
    if (!this.deps.health) return;
    try {
      const threshold = this.deps.unhealthyAfter ?? DEFAULT_UNHEALTHY_AFTER;
      if (await this.deps.health.recordFailure(email, message, this.deps.clock.now(), threshold)) {
        this.deps.log.warn('account left new checks after failing repeatedly', {
          account: email,
          threshold,
          error: message,
        });
        this.deps.events?.healthChanged?.({ email, state: 'unhealthy', error: message });
      }
    } catch (caught) {
      this.deps.log.error('could not record an account failure', { account: email, error: caught });
    }
  }
}
