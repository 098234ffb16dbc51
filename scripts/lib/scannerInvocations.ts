// Owns a model of the scanner's invocations against its reserved concurrency, second by second: every shard's loop
// for a whole Lambda timeout, its successor started at the loop's deadline while the loop still finishes, the
// minute schedule's kick of every shard, and the stream's wake-ups, all at once. Checks never stop, so loops hand
// over forever; an invocation started past the reservation is throttled.
import { readSettings } from '../../infra/settings';
import { DEADLINE_MARGIN_MS, SCAN_SCHEDULE_MS } from '../../shared/scanner/scanLoop';
import { WAKE_UP_INVOCATIONS } from '../../shared/scanner/scannerCapacity';

export interface InvocationModel {
  shards: number;
  reservation: number;
  /** The scanner's Lambda timeout (infra/stacks/ServiceStack.ts: 5 minutes). */
  timeoutMs: number;
  minutes: number;
  /** Where in the minute the first loops start, against the schedule (the worst phase is not known in advance). */
  phaseMs: number;
  /** How long a kick that finds its shard's lease held runs (one read). */
  kickMs?: number;
}

export interface InvocationReport {
  peak: number;
  throttled: number;
  /** Shards whose loop was ever throttled: their seeds went unswept until the next minute. */
  shardsThrottled: number;
}

const STEP_MS = 1000;

const modelScannerInvocations = (model: InvocationModel): InvocationReport => {
  const kickMs = model.kickMs ?? STEP_MS;
  /** End times of the invocations running now. */
  let running: number[] = [];
  /** When each shard's loop reaches its deadline and hands over, or undefined with no loop. */
  const handOverAt: (number | undefined)[] = Array.from({ length: model.shards }, () => undefined);
  const shardsThrottled = new Set<number>();
  let peak = 0;
  let throttled = 0;
  const start = (now: number, durationMs: number, shard?: number): boolean => {
    if (running.length >= model.reservation) {
      throttled += 1;
      if (shard !== undefined) shardsThrottled.add(shard);
      return false;
    }
    running.push(now + durationMs);
    peak = Math.max(peak, running.length);
    return true;
  };
  const loop = (now: number, shard: number) => {
    handOverAt[shard] = start(now, model.timeoutMs, shard)
      ? now + model.timeoutMs - DEADLINE_MARGIN_MS
      : undefined;
  };
  for (let now = 0; now < model.minutes * 60_000; now += STEP_MS) {
    running = running.filter((end) => end > now);
    handOverAt.forEach((at, shard) => {
      if (at !== undefined && at <= now) loop(now, shard);
    });
    // The first loops start together (a wake-up), then the schedule kicks every shard each minute.
    if (now === 0) for (let shard = 0; shard < model.shards; shard += 1) loop(now, shard);
    if (now >= model.phaseMs && (now - model.phaseMs) % SCAN_SCHEDULE_MS === 0) {
      for (let shard = 0; shard < model.shards; shard += 1)
        if (handOverAt[shard] === undefined) loop(now, shard);
        else start(now, kickMs);
      for (let wake = 0; wake < WAKE_UP_INVOCATIONS; wake += 1) start(now, kickMs);
    }
  }
  return { peak, throttled, shardsThrottled: shardsThrottled.size };
};

/** The worst of every phase of the schedule against the loops, a second apart. */
export const worstPhase = (model: Omit<InvocationModel, 'phaseMs'>): InvocationReport => {
  const reports = Array.from({ length: SCAN_SCHEDULE_MS / STEP_MS }, (_, second) =>
    modelScannerInvocations({ ...model, phaseMs: second * STEP_MS }),
  );
  return reports.reduce((worst, report) => ({
    peak: Math.max(worst.peak, report.peak),
    throttled: Math.max(worst.throttled, report.throttled),
    shardsThrottled: Math.max(worst.shardsThrottled, report.shardsThrottled),
  }));
};

/**
 * These shards' invocations against the reservation synth derives for these mailboxes (`-c mailboxes`, the other
 * settings their defaults): every loop, hand-over, minute kick and wake-up at once, at the schedule's worst phase.
 */
export const simulationConcurrency = (mailboxes: number, shards: number) => {
  const settings = readSettings((key) => (key === 'mailboxes' ? mailboxes : undefined));
  const modelled = worstPhase({
    shards,
    reservation: settings.scannerConcurrency,
    timeoutMs: 300_000,
    minutes: 20,
  });
  return { reservation: settings.scannerConcurrency, plannedShards: settings.plannedShards, ...modelled };
};
