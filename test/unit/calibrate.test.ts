// The calibration use case on an injected clock with in-memory stores: the control check reaches rested seeds, the
// control goes out once with its header, a copy that never comes is `missing` once the check's 5 minutes pass (no
// real waiting), and the run names the seeds suspect after it.
import { describe, expect, it } from 'vitest';
import type { RegisteredAccount } from '../../shared/domain/account';
import type { Check } from '../../shared/domain/check';
import { CONTROL_HEADER, type ControlMail } from '../../shared/domain/controlMessage';
import type { SeedHistoryStore } from '../../shared/domain/ports';
import type { ControlRun, SeedCalibration } from '../../shared/domain/seedHealth';
import { type CalibrateDeps, calibrate } from '../../shared/usecases/calibrate';
import { ManualClock } from '../support/manualClock';

const seed = (email: string, extra: Partial<RegisteredAccount> = {}): RegisteredAccount => ({
  email,
  provider: 'outlook',
  scope: 'default',
  active: true,
  health: { failures: 0 },
  ...extra,
});

const SEEDS = [
  seed('a@example.com'),
  seed('b@example.com', { rested: true }),
  seed('c@example.com', { health: { failures: 2 } }),
  seed('off@example.com', { scope: 'idle', active: false }),
];

/** Where each seed's copy lands, as the scanner would record it; absent: it never arrives. */
type Landing = Record<string, 'primary' | 'spam'>;

const setUp = () => {
  const clock = new ManualClock();
  const checks = new Map<string, Check>();
  const history: SeedCalibration[] = [];
  const runs: ControlRun[] = [];
  const sent: { recipients: readonly string[]; mail: ControlMail }[] = [];
  let landing: Landing = {};
  let ids = 0;
  const store: SeedHistoryStore = {
    record: async (entries) => void history.push(...entries),
    historyOf: async (email, limit = 1000) =>
      history
        .filter((entry) => entry.email === email)
        .sort((x, y) => y.at - x.at)
        .slice(0, limit),
    recordRun: async (run) => void runs.push(run),
    latestRun: async (scope) => runs.filter((run) => run.scope === scope).at(-1),
  };
  const deps: CalibrateDeps = {
    accounts: {
      activeInScope: async (scope) => SEEDS.filter((s) => s.scope === scope && s.active),
      list: async () => SEEDS,
      put: async () => undefined,
      remove: async () => undefined,
    },
    seeds: async () => SEEDS,
    checks: {
      create: async (check) => void checks.set(check.checkId, check),
      get: async (id) => checks.get(id),
    },
    history: store,
    clock,
    newId: () => `ctl${++ids}`,
    sender: {
      send: async (recipients, mail) => {
        sent.push({ recipients, mail });
        // The scanner's part: each copy that arrives is recorded at once.
        const check = checks.get(mail.headers[CONTROL_HEADER] ?? '') as Check;
        for (const result of check.results) {
          const category = landing[result.email];
          if (!category) continue;
          result.category = category;
          check.received++;
          check.details = {
            ...check.details,
            [result.email]: { deliveredAt: clock.now(), recordedAt: clock.now() },
          };
        }
      },
    },
  };
  return { clock, deps, sent, runs, land: (next: Landing) => (landing = next) };
};

describe('calibrate', () => {
  it('sends the control once to every seed of each active scope, rested ones too, and keeps each placement', async () => {
    const { clock, deps, sent, land } = setUp();
    land({ 'a@example.com': 'primary', 'b@example.com': 'spam' });
    const startedAt = clock.now();
    const { calibrated, failed } = await calibrate(deps);
    expect(failed).toEqual([]);
    expect(calibrated.map(({ run }) => run.scope)).toEqual(['default']);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.recipients.map((address) => address.replace(/\+[^@]*/, ''))).toEqual([
      'a@example.com',
      'b@example.com',
      'c@example.com',
    ]);
    expect(sent[0]?.mail.headers).toEqual({ [CONTROL_HEADER]: 'ctl1' });
    const [{ run, entries } = { run: undefined, entries: [] }] = calibrated;
    expect(entries.map(({ email, placement, loginFailures }) => [email, placement, loginFailures])).toEqual([
      ['a@example.com', 'inbox', 0],
      ['b@example.com', 'spam', 0],
      ['c@example.com', 'missing', 2],
    ]);
    expect(run?.byProvider).toEqual({ outlook: { total: 3, inbox: 1, spam: 1, other: 0, missing: 1 } });
    // The missing copy was waited for until the check's 5 minutes were over, on the clock alone.
    expect(clock.now() - startedAt).toBeGreaterThan(5 * 60_000);
    expect(run?.suspect).toEqual([]);
  });

  it('names a seed suspect once its control went astray in 2 of its last 3 runs', async () => {
    const { deps, runs, land } = setUp();
    land({ 'a@example.com': 'primary', 'b@example.com': 'primary', 'c@example.com': 'primary' });
    await calibrate(deps);
    land({ 'a@example.com': 'spam', 'b@example.com': 'primary', 'c@example.com': 'primary' });
    await calibrate(deps);
    expect(runs.at(-1)?.suspect).toEqual([]);
    land({ 'b@example.com': 'primary', 'c@example.com': 'primary' });
    await calibrate(deps);
    expect(runs.at(-1)?.suspect).toEqual(['a@example.com']);
  });
});
