// Owns one scanner loop: hold the lease, sweep every few seconds while any check is active, stop before the deadline.
import type { Clock } from '../domain/clock';
import type { Logger } from '../log';
import { SCAN_SCHEDULE_MS } from './planning';
import type { Scanner } from './Scanner';
import type { TickReport } from './scanHooks';
import type { Lease } from './scannerPorts';

/**
 * The scanner Lambda stops its loop this long before its deadline: Scanner.close() waits at most 5 s for sweeps
 * in flight and 2 s per logout, so this leaves room; the CDK stack sets the function timeout well above it.
 */
export const DEADLINE_MARGIN_MS = 20_000;

export { SCAN_SCHEDULE_MS };

/** The default of ScanLoopOptions.storeFailureGraceMs: the schedule's minute. */
const STORE_FAILURE_GRACE_MS = SCAN_SCHEDULE_MS;

export interface ScanLoopOptions {
  owner: string;
  intervalMs: number;
  /** Epoch ms, by the loop's clock, by which the loop must have stopped, e.g. the Lambda deadline less a margin. */
  deadline: number;
  /** Longer than the interval so the lease stays held while the loop runs, short enough to recover from a crash. */
  leaseTtlMs: number;
  /**
   * How long to keep sweeping with no active check before stopping. 0 for the schedule (exit at once, no
   * login); a few seconds after a kick from start, because the index that lists checks is eventually consistent.
   */
  idleGraceMs: number;
  /**
   * Once this loop has seen work, how long it keeps sweeping after the last pending account is done (default
   * `idleGraceMs`). Short on Lambda: every second of an idle loop is billed.
   */
  lingerMs?: number;
  /**
   * How long to keep trying for a lease another loop holds (default 0: give up at once). A kick that arrives as
   * the running loop ends would otherwise wait for the next schedule.
   */
  acquireWaitMs?: number;
  /** The owner a wake-up reserved the lease under for this loop (see kickLoops): taken over at once. */
  reservedBy?: string;
  /**
   * How long a failing tick or lease renewal (DynamoDB unreachable after its own retries) is tried again each
   * interval (default STORE_FAILURE_GRACE_MS). Ending the loop at once would leave mail unread until the next
   * schedule; a fault that lasts longer ends the loop with its error, so it still fails the invocation and raises
   * the scanner alarm.
   */
  storeFailureGraceMs?: number;
}

/**
 * Whether the lease must be written again before the next tick: once less than half its TTL is left (and always when
 * less than an interval is: the next sleep must not outlive it). Renewing every tick cost a write a second; half the
 * TTL keeps as much time for a slow or failing renewal as the TTL itself allows, and no other loop can take the lease
 * before it expires, so the loop sweeps only while its lease is surely its own.
 */
const renewalDue = (leftMs: number, options: Pick<ScanLoopOptions, 'leaseTtlMs' | 'intervalMs'>) =>
  leftMs < options.leaseTtlMs / 2 || leftMs <= options.intervalMs;

/** Waits for `sweeps` to end, but not past `deadline` by the loop's clock, nor once `signal` aborts. */
const settled = async (sweeps: Promise<unknown>[], clock: Clock, deadline: number, signal?: AbortSignal) => {
  if (sweeps.length === 0) return;
  const over = new AbortController();
  const stop = () => over.abort();
  signal?.addEventListener('abort', stop, { once: true });
  await Promise.race([
    Promise.allSettled(sweeps),
    clock.sleep(Math.max(0, deadline - clock.now()), over.signal),
  ]);
  over.abort();
  signal?.removeEventListener('abort', stop);
};

export interface ScanLoopReport {
  /** False when another loop held the lease: this one did nothing, with no IMAP login. */
  ran: boolean;
  ticks: number;
  stoppedBecause: 'idle' | 'deadline' | 'lease-lost' | 'not-acquired' | 'stopped';
  /** When the last tick began (its listing of the checks), by the loop's clock; undefined when none ran. */
  lastTickAt?: number;
}

type LoopDeps = { scanner: Pick<Scanner, 'tick' | 'close'>; lease: Lease; clock: Clock; log: Logger };

/** Takes the lease, trying again each interval while `acquireWaitMs` allows; when it was taken, or undefined. */
const acquireLease = async (
  { lease, clock }: LoopDeps,
  options: ScanLoopOptions,
  signal: AbortSignal | undefined,
): Promise<{ acquiredAt: number; waited: boolean } | undefined> => {
  const giveUpAt = clock.now() + (options.acquireWaitMs ?? 0);
  let waited = false;
  let acquiredAt = clock.now();
  while (!(await lease.acquire(options.owner, acquiredAt, options.leaseTtlMs, options.reservedBy))) {
    waited = true;
    if (signal?.aborted || clock.now() + options.intervalMs > Math.min(giveUpAt, options.deadline))
      return undefined;
    await clock.sleep(options.intervalMs, signal);
    acquiredAt = clock.now();
  }
  return { acquiredAt, waited };
};

export const runScanLoop = async (
  deps: LoopDeps,
  options: ScanLoopOptions,
  signal?: AbortSignal,
  /** Called after every tick, e.g. to publish buffered metrics from a long loop. */
  afterTick?: () => void,
): Promise<ScanLoopReport> => {
  const { scanner, lease, log } = deps;
  const acquired = await acquireLease(deps, options, signal);
  if (!acquired) return { ran: false, ticks: 0, stoppedBecause: 'not-acquired' };
  // A loop that had to wait for the lease was woken while another one ran, and that one swept after the wake-up and
  // then lingered: the check that woke this loop is done or shows within a linger. The full grace would bill
  // seconds of sweeping nothing.
  const idleGraceMs = acquired.waited
    ? Math.min(options.idleGraceMs, options.lingerMs ?? options.idleGraceMs)
    : options.idleGraceMs;
  const loop = new LoopState(deps, options, idleGraceMs, acquired.acquiredAt);
  try {
    await loop.run(signal, afterTick);
  } finally {
    // The next loop in this process takes up the sessions of accounts still waited for (Scanner's parked sessions).
    await scanner.close(undefined, true);
    // The lease expires by itself; a failed release must not hide why the loop ended.
    await lease
      .release(options.owner)
      .catch((error: unknown) => log.warn('scanner lease not released', { owner: options.owner, error }));
  }
  const { ticks, stoppedBecause, lastTickAt } = loop;
  return { ran: true, ticks, stoppedBecause, ...(lastTickAt === undefined ? {} : { lastTickAt }) };
};

/** One loop's ticks between taking the lease and closing: idle, failure and lease bookkeeping. */
class LoopState {
  ticks = 0;
  lastTickAt: number | undefined;
  stoppedBecause: ScanLoopReport['stoppedBecause'] = 'deadline';
  private idleSince: number | undefined;
  private sawWork = false;
  private failingSince: number | undefined;
  /** Until when the lease is surely this loop's, by its clock: counted from the moment before the write that took it. */
  private heldUntil: number;

  constructor(
    private readonly deps: LoopDeps,
    private readonly options: ScanLoopOptions,
    private readonly idleGraceMs: number,
    acquiredAt: number,
  ) {
    this.heldUntil = acquiredAt + options.leaseTtlMs;
  }

  /** Rethrows once the store has failed for longer than the grace; until then the loop carries on. */
  private failed(what: string, error: unknown): void {
    const { clock, log } = this.deps;
    this.failingSince ??= clock.now();
    const failingForMs = clock.now() - this.failingSince;
    if (failingForMs > (this.options.storeFailureGraceMs ?? STORE_FAILURE_GRACE_MS)) throw error;
    log.warn(`${what} failed; trying again next interval`, {
      owner: this.options.owner,
      failingForMs,
      error,
    });
  }

  async run(signal: AbortSignal | undefined, afterTick: (() => void) | undefined): Promise<void> {
    const { clock, log } = this.deps;
    const { options } = this;
    while (clock.now() + options.intervalMs < options.deadline) {
      if (signal?.aborted) {
        this.stoppedBecause = 'stopped';
        return;
      }
      let healthy = true;
      this.lastTickAt = clock.now();
      const tick = await this.deps.scanner.tick().catch((error: unknown) => {
        healthy = false;
        this.failed('scanner tick', error);
      });
      this.ticks++;
      afterTick?.();
      const next = tick ? await this.afterIdle(tick, signal) : 'sleep';
      if (next === 'stop') return;
      if (next === 'again') continue;
      await clock.sleep(options.intervalMs, signal);
      const held = await this.renewed(() => {
        healthy = false;
      });
      if (!held) {
        log.warn('scanner lease lost; stopping this loop', { owner: options.owner });
        this.stoppedBecause = 'lease-lost';
        return;
      }
      if (healthy) this.failingSince = undefined;
    }
  }

  /**
   * Work is an account of this loop's shard held by a live check within its patience; one only late checks wait
   * for is the schedule's to sweep, so a lone check that never completes does not keep the loop (and its Lambda)
   * running. Answers whether the loop sleeps, looks again at once, or stops idle.
   */
  private async afterIdle(
    tick: TickReport,
    signal: AbortSignal | undefined,
  ): Promise<'sleep' | 'again' | 'stop'> {
    const { clock } = this.deps;
    if (tick.heldAccounts > 0) {
      this.idleSince = undefined;
      this.sawWork = true;
      return 'sleep';
    }
    this.idleSince ??= clock.now();
    const grace = this.sawWork ? (this.options.lingerMs ?? this.idleGraceMs) : this.idleGraceMs;
    if (clock.now() - this.idleSince < grace) return 'sleep';
    if (tick.started.length > 0) {
      // The schedule's loop is idle at its first tick, having started the sweeps of accounts no check holds: they
      // end before it closes (within the deadline), or closing would cut them and count them failed. Then it looks
      // once more at once: a sweep may have found something to hold (a copy waiting for its Gmail tab).
      await settled(tick.started, clock, this.options.deadline, signal);
      return 'again';
    }
    this.stoppedBecause = 'idle';
    return 'stop';
  }

  /** Writes the lease again when due; false when another loop holds it. Unknown is not lost (see below). */
  private async renewed(unhealthy: () => void): Promise<boolean> {
    const { clock, lease } = this.deps;
    const { options } = this;
    if (!renewalDue(this.heldUntil - clock.now(), options)) return true;
    const from = clock.now();
    // Unknown is not lost: the lease is ours until it expires, and results are conditional writes anyway.
    return lease.acquire(options.owner, from, options.leaseTtlMs).then(
      (renewed) => {
        if (renewed) this.heldUntil = from + options.leaseTtlMs;
        return renewed;
      },
      (error: unknown) => {
        unhealthy();
        this.failed('scanner lease renewal', error);
        return true;
      },
    );
  }
}
