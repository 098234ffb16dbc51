// Owns the in-process scanner of `npm start`: the same loop as the Lambda, started by a kick or a 60 s timer.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../domain/clock';
import type { ScanTrigger } from '../domain/ports';
import type { Logger } from '../log';
import type { Lease } from '../scanner/ports';
import type { Scanner } from '../scanner/Scanner';
import { runScanLoop, type ScanLoopOptions } from '../scanner/scanLoop';

export class LocalScanRunner implements ScanTrigger {
  private running: Promise<void> | undefined;
  private kickedWhileRunning = false;
  private timer: NodeJS.Timeout | undefined;
  private readonly stopper = new AbortController();
  private readonly owner = `local-${randomUUID()}`;

  constructor(
    private readonly deps: { scanner: Scanner; lease: Lease; clock: Clock; log: Logger },
    private readonly options: Pick<ScanLoopOptions, 'intervalMs' | 'leaseTtlMs' | 'idleGraceMs'>,
    /** Stands in for the EventBridge schedule. */
    private readonly scheduleMs = 60_000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.kick(), this.scheduleMs);
    void this.kick();
  }

  async kick(): Promise<void> {
    if (this.stopper.signal.aborted) return;
    if (this.running) {
      // The loop may be about to stop as idle; run again after it so this kick is not lost.
      this.kickedWhileRunning = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.stopper.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.kickedWhileRunning = false;
      try {
        const report = await runScanLoop(
          this.deps,
          { ...this.options, owner: this.owner, deadline: Number.MAX_SAFE_INTEGER },
          this.stopper.signal,
        );
        this.deps.log.debug('scan loop ended', { ...report });
      } catch (error) {
        this.deps.log.error('scan loop failed', { error });
      }
    } while (this.kickedWhileRunning && !this.stopper.signal.aborted);
  }
}
