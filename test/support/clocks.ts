// A clock that runs in real time but can be pushed forward, for tests against real mail servers whose
// INTERNALDATE is real time while the 5- and 10-minute limits must pass without sleeping.
import { type Clock, systemClock } from '../../shared/domain/clock';

export class OffsetClock implements Clock {
  private offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
  /** Waits in real time: the mail servers on the other side do too. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return systemClock.sleep(ms, signal);
  }
  reset(): void {
    this.offset = 0;
  }
}
