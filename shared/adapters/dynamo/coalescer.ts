// Owns coalescing the calls that concurrent account sweeps make within a few milliseconds into one batch call:
// a tick's sweeps each read and write their own cursors, and one call for many accounts costs what one for one does.
import { startTimer, type Timer } from '../../domain/timer';

interface Waiting<T, R> {
  value: T;
  waiters: { resolve(result: R | undefined): void; reject(error: unknown): void }[];
}

export class Coalescer<T, R> {
  private pending = new Map<string, Waiting<T, R>>();
  private timer: Timer | undefined;

  /**
   * `run` receives at most `max` distinct keys and answers a result per key (a key it leaves out: undefined); a
   * failure rejects every call of that batch. A batch goes when it holds `max` keys or `windowMs` after its first.
   */
  constructor(
    private readonly run: (batch: ReadonlyMap<string, T>) => Promise<ReadonlyMap<string, R>>,
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /**
   * Resolves once the batch holding `key` is done. The same key again before then joins that batch, its value
   * replacing the earlier one (the caller's newer state of the same thing), and resolves with it.
   */
  add(key: string, value: T): Promise<R | undefined> {
    return new Promise((resolve, reject) => {
      const known = this.pending.get(key);
      if (known) known.value = value;
      else this.pending.set(key, { value, waiters: [] });
      this.pending.get(key)?.waiters.push({ resolve, reject });
      if (this.pending.size >= this.max) this.flush();
      else this.timer ??= startTimer(this.windowMs, () => this.flush());
    });
  }

  private flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    const batch = this.pending;
    this.pending = new Map();
    this.run(new Map([...batch].map(([key, { value }]) => [key, value]))).then(
      (results) => {
        for (const [key, { waiters }] of batch)
          for (const waiter of waiters) waiter.resolve(results.get(key));
      },
      (error: unknown) => {
        for (const { waiters } of batch.values()) for (const waiter of waiters) waiter.reject(error);
      },
    );
  }
}
