// npm start's calibration schedule on a manual clock: one calibration every CALIBRATION_EVERY, never before the first
// interval, a failed one logged and the next still run; and CALIBRATION_EVERY read once with the AWS setting's bounds.
import { describe, expect, it } from 'vitest';
import type { calibrate } from '../../shared/calibration/usecases/calibrate';
import { loadLocalSettings } from '../../shared/config';
import { CalibrationSchedule } from '../../shared/local/CalibrationSchedule';
import { createLogger } from '../../shared/log';
import { ManualClock } from '../support/manualClock';

type Outcome = Awaited<ReturnType<typeof calibrate>>;
const EVERY = 6 * 3_600_000;
const OUTCOME: Outcome = { calibrated: [], failed: [] };

/** Runs the schedule until `runs` calibrations were asked for; returns the clock's time at each and the log lines. */
const runUntil = async (clock: ManualClock, runs: number, fail: (call: number) => boolean = () => false) => {
  const at: number[] = [];
  const lines: string[] = [];
  let schedule: CalibrationSchedule | undefined;
  await new Promise<void>((resolve) => {
    schedule = new CalibrationSchedule({
      clock,
      everyMs: EVERY,
      log: createLogger('test', 'info', (line) => lines.push(line)),
      run: async () => {
        at.push(clock.now());
        if (at.length === runs) void schedule?.stop().then(resolve);
        if (fail(at.length)) throw new Error('SMTP server 127.0.0.1:2587 refused the login');
        return OUTCOME;
      },
    });
    schedule.start();
  });
  return { at, lines, schedule };
};

describe('CalibrationSchedule', () => {
  it('calibrates once every interval on the injected clock, the first one interval after start', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const { at, schedule } = await runUntil(clock, 3);
    expect(at).toEqual([t0 + EVERY, t0 + 2 * EVERY, t0 + 3 * EVERY]);
    expect(schedule?.last).toBe(OUTCOME);
  });

  it('logs a failed calibration and still runs the next', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const { at, lines, schedule } = await runUntil(clock, 2, (call) => call === 1);
    expect(at).toEqual([t0 + EVERY, t0 + 2 * EVERY]);
    expect(
      lines.some((line) => line.includes('calibration failed') && line.includes('refused the login')),
    ).toBe(true);
    expect(lines.some((line) => line.includes('"calibrated"'))).toBe(true);
    expect(schedule?.last).toBe(OUTCOME);
  });

  it('stopped before its first interval, it never calibrates', async () => {
    const clock = new ManualClock();
    let runs = 0;
    const schedule = new CalibrationSchedule({
      clock,
      everyMs: EVERY,
      log: createLogger('test', 'error', () => undefined),
      run: async () => {
        runs++;
        return OUTCOME;
      },
    });
    schedule.start();
    await schedule.stop();
    await clock.sleep(2 * EVERY);
    expect(runs).toBe(0);
    expect(schedule.last).toBeUndefined();
  });
});

describe('CALIBRATION_EVERY', () => {
  const SENDER = { CONTROL_SMTP_URL: 'smtp://127.0.0.1:2587', CONTROL_FROM: 'control@sender.test' };

  it('is off unless set, and read as milliseconds with its sender', () => {
    expect(loadLocalSettings({}).calibration).toBeUndefined();
    expect(loadLocalSettings({ ...SENDER, CALIBRATION_EVERY: '' }).calibration).toBeUndefined();
    expect(loadLocalSettings({ ...SENDER, CALIBRATION_EVERY: '90m' }).calibration).toEqual({
      everyMs: 90 * 60_000,
      sender: { smtpUrl: SENDER.CONTROL_SMTP_URL, from: SENDER.CONTROL_FROM, password: undefined },
    });
  });

  it('has the AWS setting’s bounds, 15m to 7d, and needs the control sender', () => {
    expect(loadLocalSettings({ ...SENDER, CALIBRATION_EVERY: '15m' }).calibration?.everyMs).toBe(15 * 60_000);
    expect(loadLocalSettings({ ...SENDER, CALIBRATION_EVERY: '7d' }).calibration?.everyMs).toBe(
      7 * 86_400_000,
    );
    for (const wrong of ['14m', '8d', '6', 'h', '1.5h', '6 hours'])
      expect(() => loadLocalSettings({ ...SENDER, CALIBRATION_EVERY: wrong })).toThrow(
        /CALIBRATION_EVERY is a duration/,
      );
    expect(() => loadLocalSettings({ CALIBRATION_EVERY: '6h' })).toThrow(/CONTROL_SMTP_URL and CONTROL_FROM/);
  });
});
