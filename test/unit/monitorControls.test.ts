// The alarm's control is the calibration monitor's: judgeLatest pools the scope's control runs kept as runs of
// CONTROL_MONITOR since the window's oldest run (not one latest run alone), counts a control run once when the seed
// record holds it too, and still takes the seed record's latest where no control run was kept as a monitor run.
import { describe, expect, it } from 'vitest';
import type { ControlRun } from '../../shared/calibration/domain/controlRun';
import { CONTROL_MONITOR, type Monitor, type MonitorRun } from '../../shared/monitors/monitor';
import type { MonitorStore } from '../../shared/monitors/monitorsPorts';
import { judgeLatest } from '../../shared/monitors/runMonitor';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 11, 1);

const MONITOR: Monitor = {
  scope: 'default',
  name: 'welcome',
  everyMs: HOUR,
  state: 'active',
  createdAt: T0,
  nextRunAt: T0,
  windowRuns: 2,
};

const runOf = (monitor: string, checkId: string, at: number, inbox: number, total = 3): MonitorRun => ({
  scope: 'default',
  monitor,
  checkId,
  at,
  byProvider: { gmail: { inbox, spam: total - inbox, other: 0, missing: 0, total } },
  auditScore: null,
});

/** The monitor's own copies never reach the inbox: two runs in the window, two in the baseline. */
const OWN = [1, 2, 3, 4].map((hour) => runOf('welcome', `w${hour}`, T0 + hour * HOUR, 0));

const storeOf = (runs: MonitorRun[]): Pick<MonitorStore, 'runs'> => ({
  runs: async (scope, name, limit) =>
    runs
      .filter((run) => run.scope === scope && run.monitor === name)
      .sort((a, b) => b.at - a.at)
      .slice(0, limit),
});

const controlRunOf = (run: MonitorRun): ControlRun => ({
  scope: run.scope,
  checkId: run.checkId,
  at: run.at,
  everyMs: HOUR,
  byProvider: {
    gmail: {
      ...(run.byProvider.gmail ?? { inbox: 0, spam: 0, other: 0, missing: 0, total: 0 }),
      astray: 0,
      unreachable: 0,
    },
  },
  providerAstray: [],
  seeds: [],
  unreachable: [],
  suspect: [],
});

const judge = (runs: MonitorRun[], latest: ControlRun | undefined) =>
  judgeLatest(
    { monitors: storeOf(runs) as MonitorStore, controls: { latestRun: async () => latest } },
    MONITOR,
  );

describe("the monitor alarm's control", () => {
  it('pools the calibration monitor runs in the window, once each, and leaves older ones out', async () => {
    const before = runOf(CONTROL_MONITOR, 'c0', T0 + 2 * HOUR, 0);
    const first = runOf(CONTROL_MONITOR, 'c1', T0 + 3.5 * HOUR, 3);
    const second = runOf(CONTROL_MONITOR, 'c2', T0 + 4.2 * HOUR, 3);
    const [gmail] = await judge([...OWN, before, first, second], controlRunOf(second));
    expect([gmail?.control?.count, gmail?.control?.of]).toEqual([6, 6]);
    expect(gmail?.state).toBe('message');
    expect(gmail?.runIds).toEqual(['w4', 'w3']);
  });

  it("takes the seed record's latest control run where none was kept as a monitor run", async () => {
    const older = runOf(CONTROL_MONITOR, 'old', T0 + 3.2 * HOUR, 2);
    const [gmail] = await judge(OWN, controlRunOf(older));
    expect([gmail?.control?.count, gmail?.control?.of]).toEqual([2, 3]);
  });

  it('has no control when the scope has no control run in the window', async () => {
    const [gmail] = await judge([...OWN, runOf(CONTROL_MONITOR, 'c0', T0 + HOUR, 3)], undefined);
    expect(gmail?.control).toBeNull();
    expect(gmail?.state).toBe('ok');
  });
});
