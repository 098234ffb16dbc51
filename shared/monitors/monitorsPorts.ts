// Owns what monitors need from the outside: where monitors and their runs are kept (their message sealed through
// shared/domain/sealer.ts), how a run's message is sent, and where a run's counts are published.
import type { Monitor, MonitorRun } from './monitor';
import type { ProviderJudgement } from './monitorAlarm';

export interface MonitorStore {
  /** Writes the monitor and its sealed message once; false when the scope already has a monitor of that name. */
  create(monitor: Monitor, sealed: string): Promise<boolean>;
  get(scope: string, name: string): Promise<Monitor | undefined>;
  sealedMessage(scope: string, name: string): Promise<string | undefined>;
  /** Every monitor (of `scope` where given), by scope then name. */
  list(scope?: string): Promise<Monitor[]>;
  /** Changes state or next run of an existing monitor; false when there is none. */
  update(
    scope: string,
    name: string,
    change: Partial<Pick<Monitor, 'state' | 'nextRunAt'>>,
  ): Promise<boolean>;
  /** Removes the monitor and its message; its runs stay until their TTL. False when there was none. */
  remove(scope: string, name: string): Promise<boolean>;
  recordRun(run: MonitorRun): Promise<void>;
  /** The monitor's latest runs, newest first, at most `limit`. */
  runs(scope: string, name: string, limit: number): Promise<MonitorRun[]>;
}

/** Sends a monitor's stored message, unchanged, to every tagged address (envelope recipients only). */
export interface MonitorSender {
  send(recipients: readonly string[], eml: Uint8Array): Promise<void>;
  close(): void;
}

/** Where each run's counts go: CloudWatch on AWS, an in-process sink under npm start. */
export interface MonitorTelemetry {
  publishRun(run: MonitorRun): void | Promise<void>;
  /** The alarm's judgement after the run, per provider (MonitorDrop): what the CloudWatch alarm watches. */
  publishJudgements(run: MonitorRun, judgements: readonly ProviderJudgement[]): void | Promise<void>;
}
