// Owns what a monitor is: a scope's stored message sent on a schedule, each run an ordinary check tagged with the
// monitor's name; its name and interval rules, and the counts one run keeps per provider.
import { validateScope } from '../domain/apiKey';
import { InvalidInputError } from '../domain/errors';

export type MonitorState = 'active' | 'paused';

export interface Monitor {
  scope: string;
  name: string;
  everyMs: number;
  state: MonitorState;
  createdAt: number;
  /** When the schedule next runs it (a paused monitor keeps it, and runs at the next tick after resume). */
  nextRunAt: number;
  /** The API key whose webhook secrets sign the run's webhook; required with a callback URL. */
  keyId?: string | undefined;
  callbackUrl?: string | undefined;
  /** Runs needed in the window before the alarm may judge; default from the power rule (monitorAlarm.ts). */
  windowRuns?: number | undefined;
}

/** What is sealed: the message (it may hold customer data) and how to send it (the URL may hold a password). */
export interface MonitorSecret {
  eml: string;
  sendVia: string;
  password?: string | undefined;
  from?: string | undefined;
}

export interface ProviderCounts {
  inbox: number;
  spam: number;
  other: number;
  missing: number;
  total: number;
}

/** One run as kept: its check, when, and per provider where the copies landed. */
export interface MonitorRun {
  scope: string;
  monitor: string;
  checkId: string;
  at: number;
  byProvider: Record<string, ProviderCounts>;
  /** The sender audit's score where one was made; null when none was. */
  auditScore: number | null;
}

// Same alphabet as a scope, so `HISTORY#scope#MONITOR#name` can never be read as another scope's key.
const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * The calibration's monitor in every scope: its message is the control, built at each run (nothing sealed), and its
 * runs are kept, published and listed (`history?monitor=calibration`) under this name, which no stored monitor takes.
 */
export const CONTROL_MONITOR = 'calibration';

export const validateMonitorName = (name: string | undefined): string => {
  if (name === undefined || !NAME.test(name))
    throw new InvalidInputError(
      `invalid monitor name "${name ?? ''}": use 1-63 of [a-z0-9_-], starting with a letter or digit`,
    );
  if (name === CONTROL_MONITOR)
    throw new InvalidInputError(
      `the monitor name "${CONTROL_MONITOR}" is the calibration's own (its control runs): choose another`,
    );
  return name;
};

export const validateMonitorScope = (scope: string | undefined): string => {
  if (scope === undefined) throw new InvalidInputError('monitors need --scope');
  return validateScope(scope);
};

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
// A short schedule is for tests on loopback; a run waits for its check, so runs never overlap whatever the interval.
const MIN_EVERY_MS = 10_000;
const MAX_EVERY_MS = 7 * 86_400_000;
const MONITOR_EVERY_RULE = 'a duration from 10s to 7d such as 6h, 90m or 1d';

export const parseMonitorEvery = (value: string | undefined): number => {
  // Anchored, one digit run and one letter: nothing here can backtrack.
  const match = value === undefined ? null : /^(\d{1,6})([smhd])$/.exec(value.trim());
  const ms = match ? Number(match[1]) * (UNITS[match[2] ?? ''] ?? Number.NaN) : Number.NaN;
  if (!(ms >= MIN_EVERY_MS && ms <= MAX_EVERY_MS))
    throw new InvalidInputError(`--every takes ${MONITOR_EVERY_RULE}`);
  return ms;
};

export const isDue = (monitor: Monitor, now: number): boolean =>
  monitor.state === 'active' && monitor.nextRunAt <= now;

/** The next run after one at `at`: whole intervals from the last planned time, so a slow run does not drift it. */
export const nextRunAfter = (monitor: Pick<Monitor, 'nextRunAt' | 'everyMs'>, at: number): number => {
  const missed = Math.max(0, Math.floor((at - monitor.nextRunAt) / monitor.everyMs));
  return monitor.nextRunAt + (missed + 1) * monitor.everyMs;
};

export const emptyCounts = (): ProviderCounts => ({ inbox: 0, spam: 0, other: 0, missing: 0, total: 0 });
