// Owns waiting for a check to settle: reading it at once and then every interval, riding out a few transient
// failures, until it is `complete` or `timeout`, the caller's deadline passes or its signal aborts.
import { ApiError, BadResponseError, NetworkError, WaitTimeoutError } from './apiErrors';
import { type PollIntervalOptions, pollIntervalOf } from './pollInterval';
import { abortReason } from './request';
import type { CheckView } from './resources';

/**
 * How waitForCheck polls, and when it gives up.
 *
 * @example
 * ```ts
 * const wait: WaitOptions = { intervalMs: 10_000, timeoutMs: 6 * 60_000, onProgress: (c) => console.log(c.received) };
 * ```
 */
export interface WaitOptions extends PollIntervalOptions {
  signal?: AbortSignal;
  /** Called with every check read, the last one (not pending) included. */
  onProgress?: (check: CheckView) => void;
  /** Rejects with WaitTimeoutError when the check is still pending this long after the call. */
  timeoutMs?: number;
  /** Transient failures (no answer, 5xx, 429) in a row that are retried at the next poll (default 2). */
  retries?: number;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts; never leaves a timer behind. */
const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const isTransient = (error: unknown) =>
  error instanceof NetworkError ||
  ((error instanceof ApiError || error instanceof BadResponseError) &&
    (error.status >= 500 || error.status === 429));

/** Polls `getCheck` until the check is settled: the client's waitForCheck over its own getCheck. */
export const pollUntilSettled = async (
  getCheck: (checkId: string, options: { signal?: AbortSignal | undefined }) => Promise<CheckView>,
  checkId: string,
  wait: WaitOptions,
): Promise<CheckView> => {
  const { signal, onProgress, timeoutMs, retries = 2 } = wait;
  const intervalMs = pollIntervalOf(wait);
  const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
  let last: CheckView | undefined;
  for (let failures = 0; ; ) {
    let check: CheckView | undefined;
    try {
      check = await getCheck(checkId, { signal });
      failures = 0;
    } catch (error) {
      if (signal?.aborted || !isTransient(error) || ++failures > retries) throw error;
    }
    if (check) {
      last = check;
      onProgress?.(check);
      if (check.status !== 'pending') return check;
    }
    let delay = intervalMs;
    if (deadline !== undefined) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new WaitTimeoutError(timeoutMs as number, last);
      delay = Math.min(delay, remaining);
    }
    await sleep(delay, signal);
  }
};
