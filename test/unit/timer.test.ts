// The one clamp every sleep and timer goes through: a delay past Node's 2^31−1 ms waits (in steps), never fires at
// once; and the local loop, whose deadline is Number.MAX_SAFE_INTEGER, waits for its sweeps as the Lambda's does.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../shared/domain/clock';
import { MAX_TIMER_MS, sleep, startTimer } from '../../shared/domain/timer';
import { createLogger } from '../../shared/log';
import { type AccountSweep, emptySweep } from '../../shared/scanner/scanHooks';
import { runScanLoop } from '../../shared/scanner/scanLoop';
import type { Lease } from '../../shared/scanner/scannerPorts';

const log = createLogger('test', 'error');
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  vi.useRealTimers();
});

describe('the timer clamp, on the real clock', () => {
  it('does not fire a delay past 2^31−1 ms at once, and raises no TimeoutOverflowWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const fired: string[] = [];
    const timers = [
      startTimer(MAX_TIMER_MS + 1, () => fired.push('just past')),
      startTimer(Number.MAX_SAFE_INTEGER - Date.now(), () => fired.push('far deadline')),
      startTimer(Number.POSITIVE_INFINITY, () => fired.push('never')),
    ];
    const short = startTimer(5, () => fired.push('short'));
    await pause(120);
    for (const timer of [...timers, short]) timer.cancel();
    process.off('warning', onWarning);
    expect(fired).toEqual(['short']);
    expect(warnings).not.toContain('TimeoutOverflowWarning');
  });

  it('sleeps until the signal aborts when the delay is out of a timer’s range', async () => {
    const controller = new AbortController();
    let woke = false;
    const sleeping = sleep(Number.MAX_SAFE_INTEGER, controller.signal).then(() => {
      woke = true;
    });
    await pause(60);
    expect(woke).toBe(false);
    controller.abort();
    await sleeping;
    expect(woke).toBe(true);
  });

  it('fires a long delay after the whole of it, in steps of at most 2^31−1 ms', () => {
    vi.useFakeTimers();
    const fired: number[] = [];
    const start = Date.now();
    startTimer(2 * MAX_TIMER_MS + 10, () => fired.push(Date.now() - start));
    vi.advanceTimersByTime(MAX_TIMER_MS);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(10);
    expect(fired).toEqual([2 * MAX_TIMER_MS + 10]);
  });
});

describe('a loop with no deadline (npm start)', () => {
  it('waits for the sweeps it started before it closes', async () => {
    const lease: Lease = { acquire: async () => true, release: async () => undefined };
    const events: string[] = [];
    let ticks = 0;
    const scanner = {
      tick: async () => {
        ticks++;
        const started: Promise<AccountSweep>[] =
          ticks === 1
            ? [
                pause(150).then(() => {
                  events.push('sweep done');
                  return emptySweep('seed@mail.test');
                }),
              ]
            : [];
        return { activeChecks: 0, pendingAccounts: 0, heldAccounts: 0, started };
      },
      close: async () => {
        events.push('closed');
      },
    };
    const report = await runScanLoop(
      { scanner, lease, clock: systemClock, log },
      {
        owner: 'local',
        intervalMs: 10,
        deadline: Number.MAX_SAFE_INTEGER,
        leaseTtlMs: 60_000,
        idleGraceMs: 0,
      },
    );
    expect(report.stoppedBecause).toBe('idle');
    expect(events).toEqual(['sweep done', 'closed']);
  });
});

describe('every wait in shared/ goes through the clamp', () => {
  /** Files that may call Node's timers: the clamp itself, and the standalone client (it imports nothing else). */
  const ALLOWED = new Set(['domain/timer.ts', 'client/request.ts', 'client/waitForCheck.ts']);
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
    });
  it('calls no setTimeout, setInterval or timers/promises anywhere else', () => {
    const root = join(__dirname, '../../shared');
    const offenders = files(root)
      .map((path) => path.slice(root.length + 1))
      .filter((path) => !ALLOWED.has(path))
      .filter((path) =>
        /\bsetTimeout\(|\bsetInterval\(|node:timers\/promises/.test(readFileSync(join(root, path), 'utf8')),
      );
    expect(offenders).toEqual([]);
  });
});
