// The calibration use case on an injected clock with in-memory stores: the control check reaches rested seeds, the
// control goes out once with its header, a copy that never comes is `missing` once the check's 5 minutes pass (no
// real waiting), and the run names the seeds suspect after it: relative to their provider (a control in Trash counts,
// one lost at most seeds flags the provider instead), never for a seed that could not be read, and however far apart
// the calibrations are, on a store that purges by the items' own TTL.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { seedCalibrationFromItem, seedCalibrationToItem } from '../../shared/adapters/dynamo/seedHistoryItem';
import { TABLE_SCHEMA } from '../../shared/adapters/dynamo/table';
import { emitCalibration } from '../../shared/adapters/telemetry/calibrationMetrics';
import { createMetrics } from '../../shared/adapters/telemetry/powertools';
import { CONTROL_HEADER, type ControlMail } from '../../shared/calibration/domain/controlMessage';
import type { ControlRun } from '../../shared/calibration/domain/controlRun';
import { type CalibrateDeps, calibrate } from '../../shared/calibration/usecases/calibrate';
import { runLines } from '../../shared/cli/calibrationRun';
import type { RegisteredAccount } from '../../shared/domain/account';
import type { Check } from '../../shared/domain/check';
import type { SeedHistoryStore } from '../../shared/domain/ports';
import { CONTROL_MONITOR, type MonitorRun, validateMonitorName } from '../../shared/monitors/monitor';
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
type Landing = Record<string, 'primary' | 'spam' | 'trash'>;

const setUp = () => {
  const clock = new ManualClock();
  const checks = new Map<string, Check>();
  // Kept as the table keeps them, and gone once their TTL has passed (DynamoDB's purge, without its lag).
  const items: Record<string, unknown>[] = [];
  const alive = () =>
    items
      .filter((item) => (item[TABLE_SCHEMA.ttlAttribute] as number) * 1000 > clock.now())
      .map(seedCalibrationFromItem);
  const runs: ControlRun[] = [];
  const sent: { recipients: readonly string[]; mail: ControlMail }[] = [];
  let landing: Landing = {};
  let ids = 0;
  const store: SeedHistoryStore = {
    record: async (entries) => void items.push(...entries.map(seedCalibrationToItem)),
    historyOf: async (email, limit = 1000) =>
      alive()
        .filter((entry) => entry.email === email)
        .sort((x, y) => y.at - x.at)
        .slice(0, limit),
    recordRun: async (run) => void runs.push(run),
    latestRun: async (scope) => runs.filter((run) => run.scope === scope).at(-1),
  };
  // The monitors' run path keeps and publishes each control run as a run of the calibration's monitor.
  const monitorRuns: MonitorRun[] = [];
  const published: MonitorRun[] = [];
  const deps: CalibrateDeps = {
    monitors: { recordRun: async (run) => void monitorRuns.push(run) },
    telemetry: {
      publishRun: (run) => void published.push(run),
      publishJudgements: () => {
        throw new Error('a control run is not judged as a monitor: its alarm is ControlInbox');
      },
    },
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
  return {
    clock,
    deps,
    sent,
    runs,
    checks,
    monitorRuns,
    published,
    land: (next: Landing) => (landing = next),
  };
};

afterEach(() => vi.restoreAllMocks());

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
    // c's logins were failing: its missing copy is unreadable, so 1 of the 2 seeds read lost it: not the provider.
    expect(run?.byProvider).toEqual({
      outlook: { total: 3, inbox: 1, spam: 1, other: 0, missing: 1, astray: 1, unreachable: 1 },
    });
    expect(run?.providerAstray).toEqual([]);
    expect(run?.unreachable).toEqual(['c@example.com']);
    // The missing copy was waited for until the check's 5 minutes were over, on the clock alone.
    expect(clock.now() - startedAt).toBeGreaterThan(5 * 60_000);
    expect(run?.suspect).toEqual([]);
  });

  it('runs as the calibration monitor: its check tagged, its run kept and published with the counts per provider', async () => {
    const { deps, checks, monitorRuns, published, land } = setUp();
    land({ 'a@example.com': 'primary', 'b@example.com': 'trash' });
    await calibrate(deps);
    const check = checks.get('ctl1');
    expect(check?.monitor).toBe(CONTROL_MONITOR);
    const kept = {
      scope: 'default',
      monitor: CONTROL_MONITOR,
      checkId: 'ctl1',
      at: check?.createdAt,
      byProvider: { outlook: { inbox: 1, spam: 0, other: 1, missing: 1, total: 3 } },
      auditScore: null,
    };
    expect(monitorRuns).toEqual([kept]);
    expect(published).toEqual([kept]);
    // No stored monitor can take the calibration's name, so its runs and history are the control's alone.
    expect(() => validateMonitorName(CONTROL_MONITOR)).toThrow(/calibration's own/);
    expect(validateMonitorName('welcome')).toBe('welcome');
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

  it("a seed whose server files the control in Trash is suspect after 2 of 3 (the issue's operator)", async () => {
    const { deps, runs, land } = setUp();
    for (let run = 0; run < 2; run++) {
      land({ 'a@example.com': 'trash', 'b@example.com': 'primary', 'c@example.com': 'primary' });
      await calibrate(deps);
    }
    expect(runs.at(-1)?.byProvider.outlook).toMatchObject({ inbox: 2, other: 1, astray: 1 });
    expect(runs.at(-1)?.suspect).toEqual(['a@example.com']);
  });

  it('the control in spam at every seed twice flags the provider, and no seed is suspect', async () => {
    const { deps, runs, land } = setUp();
    for (let run = 0; run < 2; run++) {
      land({ 'a@example.com': 'spam', 'b@example.com': 'spam', 'c@example.com': 'spam' });
      await calibrate(deps);
    }
    expect(runs.map((run) => run.providerAstray)).toEqual([['outlook'], ['outlook']]);
    expect(runs.at(-1)?.suspect).toEqual([]);
    const [run] = runs.slice(-1);
    if (!run) throw new Error('no run');
    expect(runLines({ run, entries: [] })).toContain(
      '  outlook: most seeds lost the control: the provider (or the control sender) is flagged, not the seeds; they stay counted',
    );
  });

  it('a seed whose logins fail is unreadable, never suspect for its missing controls', async () => {
    const { deps, runs, land } = setUp();
    for (let run = 0; run < 3; run++) {
      land({ 'a@example.com': 'primary', 'b@example.com': 'primary' });
      await calibrate(deps);
    }
    expect(runs.at(-1)?.unreachable).toEqual(['c@example.com']);
    expect(runs.at(-1)?.suspect).toEqual([]);
    const [run] = runs.slice(-1);
    if (!run) throw new Error('no run');
    expect(runLines({ run, entries: [] })).toEqual([
      `scope default: control check ${run.checkId}`,
      '  outlook: inbox 2 of 3, spam 0, missing 1, other 0; astray 0, unreadable 1 (login failures)',
      '  suspect seeds: none',
      '  unreadable seeds (login failures, health unknown): c@example.com',
    ]);
  });

  it('calibrations a month apart still make a seed suspect, on a store that purges by TTL', async () => {
    const { clock, deps, runs, land } = setUp();
    const MONTH = 31 * 24 * 3_600_000;
    for (const landing of ['primary', 'spam', 'spam'] as const) {
      land({ 'a@example.com': landing, 'b@example.com': 'primary', 'c@example.com': 'primary' });
      await calibrate(deps);
      clock.advance(MONTH);
    }
    expect(runs.map((run) => run.everyMs)).toEqual([30 * 24 * 3_600_000, MONTH, MONTH]);
    expect(runs.at(-1)?.suspect).toEqual(['a@example.com']);
  });

  it("takes the schedule's interval where a schedule runs it", async () => {
    const { deps, runs, land } = setUp();
    land({ 'a@example.com': 'primary' });
    await calibrate({ ...deps, everyMs: 6 * 3_600_000 });
    expect(runs[0]?.everyMs).toBe(6 * 3_600_000);
  });

  it('emits ControlAstray per provider, 1 where most seeds lost the control, with no per-mailbox dimension', async () => {
    const { deps, land } = setUp();
    land({ 'a@example.com': 'spam', 'b@example.com': 'trash', 'c@example.com': 'primary' });
    const outcome = await calibrate(deps);
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    emitCalibration(createMetrics('calibration'), outcome.calibrated);
    const astray = lines
      .flatMap((line) => line.split('\n'))
      .filter((line) => line.includes('"ControlAstray"'))
      .map(
        (line) =>
          JSON.parse(line) as Record<string, unknown> & {
            _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] };
          },
      );
    expect(astray.map((record) => [record.Provider, record.ControlAstray])).toEqual([['outlook', 1]]);
    expect(astray[0]?._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service', 'Provider']]);
  });
});
