// Owns one run of a monitor, the calibration's control run among them: an ordinary check (the normal start, tagged
// with the monitor's name, with its webhook), its message sent once to the tagged addresses (the stored one, or the
// control built at run time), the wait for the check, the counts per provider kept and published, and for a stored
// monitor the alarm's judgement over its latest runs and the scope's control.
import { placementClassOf } from '../domain/categories';
import type { Check } from '../domain/check';
import type { Clock } from '../domain/clock';
import type { AccountRegistry, CheckStore, ScanTrigger, SeedHistoryStore } from '../domain/ports';
import type { SealContext, Sealer } from '../domain/sealer';
import { runMessageCheck } from '../usecases/messageCheck';
import {
  CONTROL_MONITOR,
  emptyCounts,
  type Monitor,
  type MonitorRun,
  type MonitorSecret,
  type ProviderCounts,
} from './monitor';
import { type ControlWindowRun, judgeMonitor, type ProviderJudgement, windowRunsFor } from './monitorAlarm';
import type { MonitorSender, MonitorStore, MonitorTelemetry } from './monitorsPorts';

/** What every run needs, a stored monitor's or the control's: the check's parts, where runs are kept and published. */
export interface MonitorRunPath {
  monitors: Pick<MonitorStore, 'recordRun'>;
  accounts: AccountRegistry;
  checks: CheckStore;
  clock: Clock;
  telemetry?: MonitorTelemetry | undefined;
  /** The sender audit's score of a check, where audits are kept. */
  auditScore?: ((checkId: string) => Promise<number | null>) | undefined;
  trigger?: ScanTrigger | undefined;
  newId?: () => string;
  pollMs?: number;
}

export interface RunMonitorDeps extends MonitorRunPath {
  monitors: MonitorStore;
  sealer: Sealer;
  /** A sender for the monitor's own SMTP server, made per run from its sealed settings. */
  senderFor: (secret: MonitorSecret) => MonitorSender;
  /** The scope's calibration record: its latest control run, if the calibration monitor has not kept it. */
  controls?: Pick<SeedHistoryStore, 'latestRun'> | undefined;
}

/** One send of a run's message to the check's tagged addresses; the check id names the control's copy. */
export type RunSend = (recipients: readonly string[], checkId: string) => Promise<void>;

/** The key id a monitor's check runs under when it has none (no webhook): no API key has it, ids are hex. */
const MONITOR_KEY_ID = 'monitor';

/** The context a monitor's message is sealed under: another monitor's sealed message does not open as this one's. */
export const sealContextOf = (scope: string, name: string): SealContext => ({
  purpose: 'monitor-message',
  item: `MONITOR#${scope}#${name}`,
});

const openSecret = async (deps: Pick<RunMonitorDeps, 'monitors' | 'sealer'>, monitor: Monitor) => {
  const sealed = await deps.monitors.sealedMessage(monitor.scope, monitor.name);
  if (sealed === undefined) throw new Error(`monitor ${monitor.name} has no stored message`);
  return JSON.parse(
    await deps.sealer.open(sealed, sealContextOf(monitor.scope, monitor.name)),
  ) as MonitorSecret;
};

/** Per provider, where the check's copies landed; a copy never recorded is missing. */
const countsOf = (check: Check): Record<string, ProviderCounts> => {
  const counts: Record<string, ProviderCounts> = {};
  for (const { email, category } of check.results) {
    const provider = check.providers?.[email] ?? 'unknown';
    const into = counts[provider] ?? emptyCounts();
    counts[provider] = into;
    into.total++;
    if (category === 'pending') into.missing++;
    else into[placementClassOf(category)]++;
  }
  return counts;
};

/**
 * The scope's control runs the alarm may pool: the calibration monitor's kept runs (its window takes those since its
 * oldest run), and the seed record's latest, for a control run kept before control runs were monitor runs.
 */
const controlsOf = async (
  deps: Pick<RunMonitorDeps, 'monitors' | 'controls'>,
  scope: string,
  limit: number,
): Promise<ControlWindowRun[]> => {
  const kept = await deps.monitors.runs(scope, CONTROL_MONITOR, limit);
  const runs = kept.map(({ checkId, at, byProvider }) => ({ checkId, at, byProvider }));
  const latest = await deps.controls?.latestRun(scope);
  if (latest && !runs.some((run) => run.checkId === latest.checkId))
    runs.push({ checkId: latest.checkId, at: latest.at, byProvider: latest.byProvider });
  return runs;
};

export interface MonitorRunOutcome {
  run: MonitorRun;
  judgements: ProviderJudgement[];
}

/**
 * The run path every monitor takes, the calibration's control included: an ordinary check (the normal start, tagged
 * with the monitor's name; a control check also reaches rested seeds), one send, the wait, and the run's counts per
 * provider kept and published. The settled check comes back for what a run keeps besides (the seeds' history).
 */
export const runMonitorCheck = async (
  deps: MonitorRunPath,
  monitor: Pick<Monitor, 'scope' | 'name' | 'keyId' | 'callbackUrl'>,
  send: RunSend,
  control = false,
): Promise<{ run: MonitorRun; check: Check }> => {
  const run = { keyId: monitor.keyId ?? MONITOR_KEY_ID, scope: monitor.scope, control };
  const options = { monitor: monitor.name, callbackUrl: monitor.callbackUrl };
  const check = await runMessageCheck(deps, { ...run, options }, send);
  const kept: MonitorRun = {
    scope: monitor.scope,
    monitor: monitor.name,
    checkId: check.checkId,
    at: check.createdAt,
    byProvider: countsOf(check),
    auditScore: deps.auditScore ? await deps.auditScore(check.checkId) : null,
  };
  await deps.monitors.recordRun(kept);
  await deps.telemetry?.publishRun(kept);
  return { run: kept, check };
};

/** A stored monitor's run: its sealed message sent unchanged, then the alarm's judgement over its latest runs. */
export const runMonitor = async (deps: RunMonitorDeps, monitor: Monitor): Promise<MonitorRunOutcome> => {
  const secret = await openSecret(deps, monitor);
  const { run } = await runMonitorCheck(deps, monitor, async (recipients) => {
    const sender = deps.senderFor(secret);
    try {
      await sender.send(recipients, Buffer.from(secret.eml, 'base64'));
    } finally {
      sender.close();
    }
  });
  const judgements = await judgeLatest(deps, monitor);
  await deps.telemetry?.publishJudgements(run, judgements);
  return { run, judgements };
};

/** The alarm's judgement over the monitor's latest runs: enough for its window and baseline at every provider. */
export const judgeLatest = async (
  deps: Pick<RunMonitorDeps, 'monitors' | 'controls'>,
  monitor: Monitor,
): Promise<ProviderJudgement[]> => {
  // One seed a provider needs the longest window; read that much, at most 2 × 23 × 3 runs for any seeds.
  const most = 2 * (monitor.windowRuns ?? windowRunsFor(1));
  const runs = await deps.monitors.runs(monitor.scope, monitor.name, Math.min(most, 500));
  return judgeMonitor({
    monitor: monitor.name,
    runs,
    controls: await controlsOf(deps, monitor.scope, Math.min(most, 500)),
    windowRuns: monitor.windowRuns,
  });
};
