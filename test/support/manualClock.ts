// Owns the test clock: time moves only when told to, and a wait moves it instead of waiting.
import type { Clock } from '../../shared/domain/clock';

export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 10, 22, 12, 0, 0)) {}
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
  /** Moves the clock by `ms` (nothing when `signal` has aborted) and yields once, so other work can run. */
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!signal?.aborted) this.current += ms;
  }
}
