// Owns the one clamp every sleep and timer goes through: Node runs a delay over 2^31−1 ms after 1 ms (with a
// TimeoutOverflowWarning), so a far deadline would fire at once. Past the limit the wait goes on in steps.

/** The longest delay one Node timer holds (2^31−1 ms, about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export interface Timer {
  cancel(): void;
}

/**
 * Calls `fire` once after `ms` (0 for a negative or NaN delay). Past MAX_TIMER_MS it waits in steps of at most that;
 * an infinite delay never fires. The timer does not keep the process alive when `unref` is set.
 */
export const startTimer = (ms: number, fire: () => void, unref = false): Timer => {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const until = Date.now() + (Number.isNaN(ms) ? 0 : Math.max(0, ms));
  const wait = (left: number) => {
    if (left === Number.POSITIVE_INFINITY) return;
    handle = setTimeout(
      () => (left > MAX_TIMER_MS ? wait(until - Date.now()) : fire()),
      Math.min(Math.max(0, left), MAX_TIMER_MS),
    );
    if (unref) handle.unref?.();
  };
  wait(until - Date.now());
  return { cancel: () => clearTimeout(handle) };
};

/** Calls `fire` every `ms`, clamped as `startTimer`; returns its cancel. */
export const every = (ms: number, fire: () => void, unref = false): Timer => {
  let current: Timer | undefined;
  let stopped = false;
  const next = () => {
    current = startTimer(
      ms,
      () => {
        if (stopped) return;
        next();
        fire();
      },
      unref,
    );
  };
  next();
  return {
    cancel: () => {
      stopped = true;
      current?.cancel();
    },
  };
};

/** Resolves after `ms` (clamped as `startTimer`), or at once when `signal` aborts. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const wake = () => {
      timer.cancel();
      signal?.removeEventListener('abort', wake);
      resolve();
    };
    const timer = startTimer(ms, wake);
    signal?.addEventListener('abort', wake, { once: true });
  });
