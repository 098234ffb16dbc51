// npm start's monitor schedule on an injected clock with an in-memory store: a due monitor runs once per tick (its
// next time moved first, by whole intervals), a paused or not-yet-due one does not, a failing run is logged and the
// schedule goes on, and each run prints one line naming the monitor, its check and each provider's state.
import { describe, expect, it } from 'vitest';
import { MonitorSchedule } from '../../shared/local/MonitorSchedule';
import { createLogger } from '../../shared/log';
import type { Monitor, MonitorRun } from '../../shared/monitors/monitor';
import type { MonitorStore } from '../../shared/monitors/monitorsPorts';
import type { MonitorRunOutcome } from '../../shared/monitors/runMonitor';
import { ManualClock } from '../support/manualClock';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const monitorOf = (name: string, extra: Partial<Monitor> = {}): Monitor => ({
  scope: 'default',
  name,
  everyMs: 60_000,
  state: 'active',
  createdAt: T0,
  nextRunAt: T0,
  ...extra,
});

const memoryStore = (monitors: Monitor[]): Pick<MonitorStore, 'list' | 'update'> => ({
  list: async () => monitors,
  update: async (_scope, name, change) => {
    const found = monitors.find((monitor) => monitor.name === name);
    if (found) Object.assign(found, change);
    return found !== undefined;
  },
});

const outcome = (monitor: Monitor, checkId: string): MonitorRunOutcome => {
  const run: MonitorRun = {
    scope: monitor.scope,
    monitor: monitor.name,
    checkId,
    at: T0,
    byProvider: {},
    auditScore: null,
  };
  return {
    run,
    judgements: [
      {
        provider: 'gmail',
        state: 'waiting',
        windowRuns: 23,
        runsHad: 1,
        window: { count: 2, of: 3, rate: 2 / 3, low: 0.2, high: 0.9 },
        baseline: null,
        control: null,
        pDrop: null,
        pControl: null,
        runIds: [checkId],
        text: '',
      },
    ],
  };
};

describe('the monitor schedule', () => {
  it('runs each due monitor once, moves its next run first, prints a line, and survives a failure', async () => {
    const clock = new ManualClock(T0 + 150_000);
    const monitors = [
      monitorOf('welcome'),
      monitorOf('paused', { state: 'paused' }),
      monitorOf('later', { nextRunAt: T0 + 10 * 60_000 }),
      monitorOf('broken'),
    ];
    const ran: string[] = [];
    const printed: string[] = [];
    const warnings: string[] = [];
    const schedule = new MonitorSchedule({
      monitors: memoryStore(monitors) as MonitorStore,
      run: async (monitor) => {
        ran.push(monitor.name);
        if (monitor.name === 'broken') throw new Error('SMTP server refused the login');
        return outcome(monitor, 'abcdefghijklmnopqrst');
      },
      clock,
      log: createLogger('test', 'warn', (line) => warnings.push(line)),
      tickMs: 1000,
      print: (line) => printed.push(line),
    });
    await schedule.tick();
    expect(ran).toEqual(['welcome', 'broken']);
    // Two and a half intervals late: the next run is the next whole interval, not one from now.
    expect(monitors[0]?.nextRunAt).toBe(T0 + 180_000);
    expect(printed).toEqual(['monitor default/welcome run abcdefghijklmnopqrst: gmail waiting inbox 2/3']);
    expect(warnings.join('\n')).toContain('monitor run failed');
    await schedule.tick();
    expect(ran).toEqual(['welcome', 'broken']);
    expect(schedule.last.get('default/welcome')?.run.checkId).toBe('abcdefghijklmnopqrst');
  });

  it('logs an alarming judgement at warn with its monitor, provider, state, run ids and full text', async () => {
    const monitors = [monitorOf('welcome')];
    const lines: string[] = [];
    const base = outcome(monitors[0] as Monitor, 'abcdefghijklmnopqrst');
    const [judgement] = base.judgements;
    const drop = {
      ...base,
      judgements: [
        { ...(judgement as NonNullable<typeof judgement>), state: 'drop' as const, text: 'gmail fell' },
      ],
    };
    const schedule = new MonitorSchedule({
      monitors: memoryStore(monitors) as MonitorStore,
      run: async () => drop,
      clock: new ManualClock(T0),
      log: createLogger('test', 'warn', (line) => lines.push(line)),
      tickMs: 1000,
      print: () => undefined,
    });
    await schedule.tick();
    const alarms = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(alarms).toEqual([
      expect.objectContaining({
        message: 'monitor alarm',
        level: expect.stringMatching(/warn/i),
        monitor: 'welcome',
        scope: 'default',
        provider: 'gmail',
        state: 'drop',
        run_ids: ['abcdefghijklmnopqrst'],
        judgement: 'gmail fell',
      }),
    ]);
  });

  it('starts no further run once stopped during a tick (the Lambda stops it near its deadline)', async () => {
    const monitors = [monitorOf('first'), monitorOf('second')];
    const ran: string[] = [];
    const schedule: MonitorSchedule = new MonitorSchedule({
      monitors: memoryStore(monitors) as MonitorStore,
      run: async (monitor) => {
        ran.push(monitor.name);
        await schedule.stop();
        return outcome(monitor, 'abcdefghijklmnopqrst');
      },
      clock: new ManualClock(T0),
      log: createLogger('test', 'warn', () => undefined),
      tickMs: 1000,
      print: () => undefined,
    });
    await schedule.tick();
    expect(ran).toEqual(['first']);
    // The one left over is still due, for the next schedule.
    expect(monitors[1]?.nextRunAt).toBe(T0);
  });
});
