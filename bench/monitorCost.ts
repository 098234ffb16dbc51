// Owns the monitor-cost section: a monitor's monthly cost at list prices (bench/prices.ts) at every 1 h and 6 h with
// 20 seeds, from the check's variable cost as the detection section MEASURED it (the latest stored run) plus what a
// run adds by the code's own reads, writes, KMS requests and metrics (computed, not metered); and the runs the alarm
// needs.
import { MONITOR_SCHEDULE } from '../infra/constructs/MonitorRuns';
import { kmsRequestsPerCheck } from '../scripts/lib/scaleCost';
import { windowRunsFor } from '../shared/monitors';
import { METRICS } from '../shared/telemetry/metrics';
import { PRICES } from './prices';

const MONTH_HOURS = 730;
const KB = 1024;
/** A run's own Lambda: the send, then a read of the check each second while it waits (up to its 5 minutes). */
const RUN_MEMORY_MB = 256;

export interface MonitorCostInput {
  /** The measured variable cost of a check of 20 accounts, every account receiving (detection section). */
  checkDollars: number;
  /** When and by which run that figure was measured. */
  checkMeasured: string;
  seeds: number;
  providers: number;
  messageBytes: number;
  /** How long a run waits for its check: the time the measured checks took to complete (an input, not metered). */
  runWaitMs: number;
}

/**
 * The metrics one monitor adds (each a custom metric billed a month): 4 counts and its judgement (MonitorDrop) a
 * provider, and the audit score.
 */
const metricsPerMonitor = (providers: number) =>
  providers *
    [
      METRICS.monitorInbox,
      METRICS.monitorSpam,
      METRICS.monitorMissing,
      METRICS.monitorCopies,
      METRICS.monitorDrop,
    ].length +
  1;

/** The drop alarm's Metrics Insights query reads every MonitorDrop series: one a provider, each billed a month. */
const alarmMetricsPerMonitor = (providers: number) => providers;

/**
 * What the schedule costs a deployment whatever its monitors: a tick every MONITOR_SCHEDULE (one Query of the
 * monitors' partition, a short Lambda), its heartbeat metric, and the errors and heartbeat alarms (a metric each).
 */
const TICK_SECONDS = 0.2;
const scheduleMonthly = () => {
  const ticks = (MONTH_HOURS * 60) / MONITOR_SCHEDULE.toMinutes();
  const tickDollars =
    PRICES.dynamoReadRequestUnit +
    (RUN_MEMORY_MB / 1024) * TICK_SECONDS * PRICES.lambdaArmGbSecond +
    PRICES.lambdaRequest;
  const fixed = PRICES.cloudWatchCustomMetricMonth + 2 * PRICES.cloudWatchAlarmMetricMonth;
  return {
    everyMinutes: MONITOR_SCHEDULE.toMinutes(),
    ticksPerMonth: Math.round(ticks),
    ticksDollars: Number((ticks * tickDollars).toPrecision(3)),
    totalDollars: Number((ticks * tickDollars + fixed).toFixed(2)),
  };
};

const perRun = (input: MonitorCostInput) => {
  const waitSeconds = input.runWaitMs / 1000;
  // The monitor item, the sealed message (base64, strongly consistent: 1 RRU a 4 KB) and one read of the check a
  // second while it waits (a check of 20 accounts is under 4 KB... its item is read whole: 2 RRU allowed).
  const readUnits = 1 + Math.ceil((input.messageBytes * 4) / 3 / (4 * KB)) + 2 * Math.ceil(waitSeconds) + 2;
  // The run item, the monitor's next time, the monitor's history entry beside the scope's.
  const writeUnits = 1 + 1 + 1;
  const lambdaGbSeconds = (RUN_MEMORY_MB / 1024) * (waitSeconds + 1);
  // Runs an hour or more apart find every data-key cache cold: the message opened (a Decrypt), and the check's own
  // requests at most, as the per-check row counts them (the measured check ran on npm start's key file, not KMS).
  const checkKms = kmsRequestsPerCheck(input.seeds);
  const kmsRequests = 1 + checkKms.decrypt + checkKms.generateDataKey;
  const dollars =
    input.checkDollars +
    kmsRequests * PRICES.kmsRequest +
    readUnits * PRICES.dynamoReadRequestUnit +
    writeUnits * PRICES.dynamoWriteRequestUnit +
    lambdaGbSeconds * PRICES.lambdaArmGbSecond +
    PRICES.lambdaRequest;
  return { readUnits, writeUnits, lambdaGbSeconds, kmsRequests, dollars };
};

const monitorMonthly = (input: MonitorCostInput, everyHours: number) => {
  const runs = MONTH_HOURS / everyHours;
  const run = perRun(input);
  const metrics = metricsPerMonitor(input.providers);
  const alarmMetrics = alarmMetricsPerMonitor(input.providers);
  const metricsDollars =
    metrics * PRICES.cloudWatchCustomMetricMonth + alarmMetrics * PRICES.cloudWatchAlarmMetricMonth;
  const runsDollars = runs * run.dollars;
  return {
    everyHours,
    runsPerMonth: Math.round(runs),
    perRunDollars: Number(run.dollars.toPrecision(3)),
    runsDollars: Number(runsDollars.toPrecision(3)),
    metrics,
    alarmMetrics,
    metricsDollars: Number(metricsDollars.toFixed(2)),
    totalDollars: Number((runsDollars + metricsDollars).toFixed(2)),
    readUnits: run.readUnits,
    writeUnits: run.writeUnits,
    kmsRequests: run.kmsRequests,
  };
};

/** Runs before the alarm can judge a provider: its window (for the control) and its window plus baseline (a drop). */
const runsBeforeAlarm = (seeds: number, providers: number) => {
  const seedsPerProvider = Math.floor(seeds / providers);
  const window = windowRunsFor(seedsPerProvider);
  return { seedsPerProvider, window, drop: 2 * window };
};

export const runMonitorCostBench = (detection: unknown) => {
  const cost = (detection as { cost?: { perCheck?: { totalDollars?: number } } } | undefined)?.cost;
  const stamp = (detection as { ranAt?: string } | undefined)?.ranAt ?? 'unknown time';
  const checkDollars = cost?.perCheck?.totalDollars;
  if (checkDollars === undefined)
    throw new Error('monitor-cost needs a detection section in bench/results/latest.json');
  const base = { checkDollars, checkMeasured: stamp, seeds: 20, messageBytes: 100 * KB, runWaitMs: 10_000 };
  return {
    prices: PRICES,
    input: base,
    // 20 seeds spread over 5 providers (4 each), and all 20 at one provider: the metrics and the alarm differ.
    fiveProviders: [1, 6].map((hours) => monitorMonthly({ ...base, providers: 5 }, hours)),
    oneProvider: [1, 6].map((hours) => monitorMonthly({ ...base, providers: 1 }, hours)),
    largestMessage: monitorMonthly({ ...base, providers: 5, messageBytes: KB * KB }, 1),
    schedule: scheduleMonthly(),
    alarm: { fiveProviders: runsBeforeAlarm(20, 5), oneProvider: runsBeforeAlarm(20, 1) },
  };
};
