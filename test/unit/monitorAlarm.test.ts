// The monitor alarm on a table of histories (hand-made runs, 6 seeds at one provider, a window of 5 runs): a real
// drop fires and names the provider, rates and runs; a one-copy wobble does not; a drop the control shares is read
// as the seeds' side; too few runs wait. The one-sided exact test is checked against hand-computed hypergeometric
// tails, and the default window against the comparison's power line (0.9 → 0.7 needs 69 seeds a side).
import { describe, expect, it } from 'vitest';
import { fisherLess } from '../../shared/domain/statistics';
import type { MonitorRun } from '../../shared/monitors/monitor';
import {
  type ControlWindowRun,
  isAlarm,
  judgeMonitor,
  windowRunsFor,
} from '../../shared/monitors/monitorAlarm';

const HOUR = 3_600_000;
const SEEDS = 6;

/** Runs oldest first, one an hour, each with `inbox` of 6 gmail copies in the inbox (the rest in spam). */
const history = (inboxes: number[]): MonitorRun[] =>
  inboxes.map((inbox, index) => ({
    scope: 'default',
    monitor: 'welcome',
    checkId: `run${String(index).padStart(2, '0')}`,
    at: index * HOUR,
    byProvider: { gmail: { inbox, spam: SEEDS - inbox, other: 0, missing: 0, total: SEEDS } },
    auditScore: null,
  }));

const controls = (inboxes: number[], from: number): ControlWindowRun[] =>
  inboxes.map((inbox, index) => ({
    checkId: `ctl${index}`,
    at: (from + index) * HOUR + 1,
    byProvider: { gmail: { inbox, total: SEEDS } },
  }));

const judge = (runs: MonitorRun[], control: ControlWindowRun[] = []) => {
  const [gmail] = judgeMonitor({ monitor: 'welcome', runs, controls: control, windowRuns: 5 });
  if (!gmail) throw new Error('no judgement');
  return gmail;
};

const TABLE = [
  { name: 'a real drop, no control', runs: [6, 6, 6, 6, 6, 2, 2, 2, 2, 2], control: [], state: 'drop' },
  {
    name: 'a real drop the control did not share',
    runs: [6, 6, 6, 6, 6, 2, 2, 2, 2, 2],
    control: [6, 6],
    state: 'message',
  },
  { name: 'a one-copy wobble', runs: [6, 6, 6, 6, 6, 6, 6, 5, 6, 6], control: [6, 6], state: 'ok' },
  { name: 'two wobbles in a row', runs: [6, 5, 6, 6, 6, 6, 5, 5, 6, 6], control: [], state: 'ok' },
  {
    name: 'a seed-side problem shown by the control',
    runs: [6, 6, 6, 6, 6, 2, 2, 2, 2, 2],
    control: [2, 1],
    state: 'seeds',
  },
  { name: 'too few runs', runs: [6, 6, 2], control: [], state: 'waiting' },
] as const;

describe('the monitor alarm on a table of histories', () => {
  for (const row of TABLE)
    it(`${row.name}: ${row.state}`, () => {
      const judgement = judge(history([...row.runs]), controls([...row.control], 5));
      expect(judgement.state).toBe(row.state);
      expect(isAlarm(judgement)).toBe(row.state === 'drop' || row.state === 'message');
    });

  it('names the provider, the rates with their intervals and the runs to open', () => {
    const judgement = judge(history([6, 6, 6, 6, 6, 2, 2, 2, 2, 2]));
    expect(judgement.window).toMatchObject({ count: 10, of: 30 });
    expect(judgement.baseline).toMatchObject({ count: 30, of: 30 });
    expect(judgement.runIds).toEqual(['run09', 'run08', 'run07', 'run06', 'run05']);
    expect(judgement.text).toContain('gmail');
    expect(judgement.text).toContain('inbox 10 of 30 (33 %, 95 % CI 19 %–51 %)');
    expect(judgement.text).toContain('baseline 30 of 30 (100 %, 95 % CI 89 %–100 %)');
    expect(judgement.text).toContain('runs run09, run08, run07, run06, run05');
  });

  it('a missing copy counts as not in the inbox', () => {
    const runs = history([6, 6, 6, 6, 6, 6, 6, 6, 6, 6]).map((run, index) =>
      index < 5
        ? run
        : { ...run, byProvider: { gmail: { inbox: 2, spam: 0, other: 0, missing: 4, total: 6 } } },
    );
    expect(judge(runs).state).toBe('drop');
  });
});

describe('the one-sided exact test and the default window', () => {
  it('is the hypergeometric lower tail', () => {
    expect(fisherLess(0, 5, 5, 0)).toBeCloseTo(1 / 252, 15);
    // Rows of 6, 6 successes in all: P(X <= 3) = (1 + P(X = 3)) / 2, P(X = 3) = C(6,3)^2 / C(12,6) = 400/924.
    expect(fisherLess(3, 3, 3, 3)).toBeCloseTo(662 / 924, 14);
    expect(fisherLess(6, 0, 0, 6)).toBe(1);
  });

  it('takes the runs for 80 % power to see 90 % fall to 70 % from the seeds per provider', () => {
    expect(windowRunsFor(3)).toBe(23);
    expect(windowRunsFor(69)).toBe(1);
    expect(windowRunsFor(20)).toBe(4);
  });
});
