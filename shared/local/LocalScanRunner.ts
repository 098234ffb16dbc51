// Owns the in-process scanner of `npm start`: the same loop as the Lambda, started by a kick or a 60 s timer.

import { randomUUID } from 'node:crypto';
import type { Clock } from '../domain/clock';
import type { ScanTrigger } from '../domain/ports';
import { every, type Timer } from '../domain/timer';
import type { Logger } from '../log';
import type { Scanner } from '../scanner/Scanner';
import { runScanLoop, SCAN_SCHEDULE_MS, type ScanLoopOptions } from '../scanner/scanLoop';
import type { Lease } from '../scanner/scannerPorts';

export class LocalScanRunner implements ScanTrigger {
  private running: Promise<void> | undefined;
  private kickedWhileRunning = false;
  private lastKickAt = Number.NEGATIVE_INFINITY;
  private timer: Timer | undefined;
  private readonly stopper = new AbortController();
  private readonly owner = `local-${randomUUID()}`;
  private runMs = 0;
  private runs = 0;
  private runningSince: number | undefined;

  constructor(
    private readonly deps: { scanner: Scanner; lease: Lease; clock: Clock; log: Logger },
    private readonly options: Pick<
      ScanLoopOptions,
      'intervalMs' | 'leaseTtlMs' | 'idleGraceMs' | 'lingerMs' | 'acquireWaitMs'
    >,
    /** Stands in for the EventBridge schedule. */
    private readonly scheduleMs = SCAN_SCHEDULE_MS,
  ) {}

  start(): void {
    this.timer = every(this.scheduleMs, () => this.wake(false));
    this.wake(true);
  }

  /** A new check: run now, and wait a little for it to show in the index (as the Lambda does on the stream). */
  async kick(): Promise<void> {
    this.wake(true);
  }

  /** The schedule's wake-up stops at once when nothing is active, as on Lambda, so an idle service costs nothing. */
  private wake(newCheck: boolean): void {
    if (this.stopper.signal.aborted) return;
    if (this.running) {
      // The loop may be about to stop as idle; run again after it so this kick is not lost.
      if (newCheck) {
        this.kickedWhileRunning = true;
        this.lastKickAt = this.deps.clock.now();
      }
      return;
    }
    this.running = this.loop(newCheck).finally(() => {
      this.running = undefined;
    });
  }

  /** Loops run and their milliseconds in all: what the same loops would be billed as Lambda invocations. */
  usage(): { runs: number; runMs: number } {
    const running = this.runningSince === undefined ? 0 : this.deps.clock.now() - this.runningSince;
    return { runs: this.runs, runMs: this.runMs + running };
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    this.stopper.abort();
    await this.running;
    // No next loop: the sessions the last one parked are logged out.
    await this.deps.scanner.close(0);
  }

  private async loop(newCheck: boolean): Promise<void> {
    let graceful = newCheck;
    do {
      const idleGraceMs = graceful ? this.options.idleGraceMs : 0;
      graceful = true;
      this.kickedWhileRunning = false;
      const began = this.deps.clock.now();
      this.runningSince = began;
      try {
        const report = await runScanLoop(
          this.deps,
          { ...this.options, idleGraceMs, owner: this.owner, deadline: Number.MAX_SAFE_INTEGER },
          this.stopper.signal,
        );
        this.deps.log.debug('scan loop ended', { ...report });
      } catch (error) {
        this.deps.log.error('scan loop failed', { error });
      }
      this.runs++;
      this.runMs += this.deps.clock.now() - began;
      this.runningSince = undefined;
    } while (this.kickedWhileRunning && this.missedKick() && !this.stopper.signal.aborted);
  }

  /**
   * Whether the loop may have ended before it saw the check of the last kick. Any tick that began after the kick saw
   * it (the check is written before the kick) and, finding work, lingered at least a linger more; so a loop that ends
   * within a linger (or an interval) of the kick missed it, and one that ends later did not.
   */
  private missedKick(): boolean {
    const linger = Math.min(this.options.lingerMs ?? this.options.idleGraceMs, this.options.intervalMs);
    return this.deps.clock.now() - this.lastKickAt < linger;
  }
}
