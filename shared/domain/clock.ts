// Owns time: everything that depends on "now" or waits receives a Clock so tests can move it without sleeping.

import { sleep } from './timer';

export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep };
