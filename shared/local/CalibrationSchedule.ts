// Owns npm start's calibration schedule: the calibration `admin calibrate` runs, every CALIBRATION_EVERY on the
// injected clock, one at a time, until stopped; each outcome is logged by scope, control check and suspect seeds.

import type { calibrate } from '../calibration';
import type { Clock } from '../domain/clock';
import type { Logger } from '../log';

type Outcome = Awaited<ReturnType<typeof calibrate>>;

export class CalibrationSchedule {
  private readonly stopper = new AbortController();
  private running: Promise<void> | undefined;
  /** The latest calibration's outcome: what a test or a status line reads. */
  last: Outcome | undefined;

  constructor(
    private readonly deps: { run: () => Promise<Outcome>; clock: Clock; log: Logger; everyMs: number },
  ) {}

  /** The first calibration comes one interval after start, as on AWS a schedule's first tick does. */
  start(): void {
    this.running ??= this.loop();
  }

  private async loop(): Promise<void> {
    const { signal } = this.stopper;
    while (!signal.aborted) {
      await this.deps.clock.sleep(this.deps.everyMs, signal);
      if (signal.aborted) return;
      await this.tick();
    }
  }

  /** One calibration of every scope; a failure is logged and the schedule goes on. */
  async tick(): Promise<Outcome | undefined> {
    try {
      const outcome = await this.deps.run();
      this.last = outcome;
      this.deps.log.info('calibrated', {
        scopes: outcome.calibrated.map(({ run }) => ({
          scope: run.scope,
          checkId: run.checkId,
          providerAstray: run.providerAstray,
          suspect: run.suspect,
        })),
        failed: outcome.failed,
      });
      return outcome;
    } catch (error) {
      this.deps.log.warn('calibration failed', {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  }

  /** Ends the wait at once; a calibration under way finishes first (its control check lasts at most 5 minutes). */
  async stop(): Promise<void> {
    this.stopper.abort();
    await this.running;
  }
}
