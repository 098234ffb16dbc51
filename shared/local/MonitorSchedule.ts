// Owns npm start's monitor schedule: every tick on the injected clock, each active monitor whose time has come runs
// once (its next time moved first, so a failing run is not retried in a loop), one at a time, until stopped; each run
// prints one line with the alarm's judgement per provider.
import type { Clock } from '../domain/clock';
import type { Logger } from '../log';
import {
  isAlarm,
  isDue,
  type Monitor,
  type MonitorRunOutcome,
  type MonitorStore,
  nextRunAfter,
} from '../monitors';

export interface MonitorScheduleDeps {
  monitors: MonitorStore;
  run: (monitor: Monitor) => Promise<MonitorRunOutcome>;
  clock: Clock;
  log: Logger;
  /** How often due monitors are looked for. */
  tickMs: number;
  /** Where the one line per run goes (stdout under npm start). */
  print: (line: string) => void;
}

/** One line per run: the monitor, its check, and per provider the judgement's state and the inbox counts. */
const runLine = (monitor: Monitor, outcome: MonitorRunOutcome): string =>
  [
    `monitor ${monitor.scope}/${monitor.name} run ${outcome.run.checkId}:`,
    outcome.judgements
      .map(
        (j) =>
          `${j.provider} ${isAlarm(j) ? 'ALARM ' : ''}${j.state} inbox ${j.window?.count ?? 0}/${j.window?.of ?? 0}`,
      )
      .join('; ') || 'no seeds',
  ].join(' ');

export class MonitorSchedule {
  private readonly stopper = new AbortController();
  private running: Promise<void> | undefined;
  /** The latest outcome of each monitor, by scope/name: what a test or `monitors status` reads. */
  readonly last = new Map<string, MonitorRunOutcome>();

  constructor(private readonly deps: MonitorScheduleDeps) {}

  start(): void {
    this.running ??= this.loop();
  }

  private async loop(): Promise<void> {
    const { signal } = this.stopper;
    while (!signal.aborted) {
      await this.deps.clock.sleep(this.deps.tickMs, signal);
      if (signal.aborted) return;
      await this.tick();
    }
  }

  /** Runs every due monitor once; a failure is logged and the schedule goes on. */
  async tick(): Promise<void> {
    const monitors = await this.deps.monitors.list().catch((error: unknown) => {
      this.deps.log.warn('monitors not listed', { error: String(error) });
      return [];
    });
    for (const monitor of monitors) {
      const now = this.deps.clock.now();
      if (this.stopper.signal.aborted || !isDue(monitor, now)) continue;
      await this.deps.monitors.update(monitor.scope, monitor.name, { nextRunAt: nextRunAfter(monitor, now) });
      try {
        const outcome = await this.deps.run(monitor);
        this.last.set(`${monitor.scope}/${monitor.name}`, outcome);
        this.deps.print(runLine(monitor, outcome));
        // Structured, so a Logs Insights query (infra/constructs/LogQueries.ts, monitor-alarms) finds each one.
        for (const judgement of outcome.judgements.filter(isAlarm))
          this.deps.log.warn('monitor alarm', {
            monitor: monitor.name,
            scope: monitor.scope,
            provider: judgement.provider,
            state: judgement.state,
            run_ids: judgement.runIds,
            judgement: judgement.text,
          });
      } catch (error) {
        this.deps.log.warn('monitor run failed', {
          monitor: monitor.name,
          scope: monitor.scope,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  /** Ends the wait at once; a run under way finishes first (its check lasts at most 5 minutes). */
  async stop(): Promise<void> {
    this.stopper.abort();
    await this.running;
  }
}
