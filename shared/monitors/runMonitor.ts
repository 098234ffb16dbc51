// Owns one run of a monitor: an ordinary check (the normal start, tagged with the monitor's name, with its webhook),
// the stored message sent once to the tagged addresses, the wait for the check, the counts per provider kept and
// published, and the alarm's judgement over the monitor's latest runs and the scope's control.
import { placementClassOf } from '../domain/categories';
import type { Check } from '../domain/check';
import type { Clock } from '../domain/clock';
import type { AccountRegistry, CheckStore, ScanTrigger, SeedHistoryStore } from '../domain/ports';
import type { SealContext, Sealer } from '../domain/sealer';
import { runMessageCheck } from '../usecases/messageCheck';
import {
  emptyCounts,
  type Monitor,
  type MonitorRun,
  type MonitorSecret,
  type ProviderCounts,
} from './monitor';
import { type ControlWindowRun, judgeMonitor, type ProviderJudgement, windowRunsFor } from './monitorAlarm';
import type { MonitorSender, MonitorStore, MonitorTelemetry } from './monitorsPorts';

export interface RunMonitorDeps {
  monitors: MonitorStore;
  sealer: Sealer;
  accounts: AccountRegistry;
  checks: CheckStore;
  clock: Clock;
  /** A sender for the monitor's own SMTP server, made per run from its sealed settings. */
  senderFor: (secret: MonitorSecret) => MonitorSender;
  telemetry?: MonitorTelemetry | undefined;
  /** The scope's calibration record: its latest control run is the alarm's control. */
  controls?: Pick<SeedHistoryStore, 'latestRun'> | undefined;
  /** The sender audit's score of a check, where audits are kept. */
  auditScore?: ((checkId: string) => Promise<number | null>) | undefined;
  trigger?: ScanTrigger | undefined;
  newId?: () => string;
  pollMs?: number;
}

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

const controlsOf = async (deps: RunMonitorDeps, scope: string): Promise<ControlWindowRun[]> => {
  const run = await deps.controls?.latestRun(scope);
  return run ? [{ checkId: run.checkId, at: run.at, byProvider: run.byProvider }] : [];
};

export interface MonitorRunOutcome {
  run: MonitorRun;
  judgements: ProviderJudgement[];
}

export const runMonitor = async (deps: RunMonitorDeps, monitor: Monitor): Promise<MonitorRunOutcome> => {
  const secret = await openSecret(deps, monitor);
  // The calibration's mechanism: an ordinary check, the stored message sent once, the wait.
  const run = { keyId: monitor.keyId ?? MONITOR_KEY_ID, scope: monitor.scope };
  const options = { monitor: monitor.name, callbackUrl: monitor.callbackUrl };
  const check = await runMessageCheck(deps, { ...run, options }, async (recipients) => {
    const sender = deps.senderFor(secret);
    try {
      await sender.send(recipients, Buffer.from(secret.eml, 'base64'));
    } finally {
      sender.close();
    }
  });
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
  const judgements = await judgeLatest(deps, monitor);
  await deps.telemetry?.publishJudgements(kept, judgements);
  return { run: kept, judgements };
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
    controls: await controlsOf(deps as RunMonitorDeps, monitor.scope),
    windowRuns: monitor.windowRuns,
  });
};
