// Benchmark: the sender audit beside detection, over real `npm start`, the loopback mail stack and the test DNS server
// (Knot, scripts/lib/dnsServer.ts) as the audit's resolver.
// - Detection with the audit on and off side by side: bench/detection.ts's LMTP phase in rounds of four runs, off, on,
//   on, off, so whatever drifts over the run weighs on both alike; each condition's p95 over its pooled samples, and
//   each run's own.
// - The audit in the report: per check, from its first copy's LMTP delivery returning to GET .../report showing the
//   audit; inside npm start (bench/auditEvents.ts), each source fetch and the time from the copy's record to stored.
// - Its size: the bytes each check's one fetch read (the report's audit.copy.bytes), one message over the cap.
// - Its cost: the detection cost phase under each condition (bench/checkCost.ts counts the audit's share), and what
//   only the scan Lambda adds (auditTelemetry: its read of the check, the metrics' EMF lines), run here against the
//   same store.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDnsServer } from '../scripts/lib/dnsServer';
import { deliverLmtp, GTUBE } from '../scripts/lib/mailStack';
import { pause } from '../scripts/lib/poll';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DynamoAuditStore } from '../shared/adapters/dynamo/DynamoAuditStore';
import { DynamoCheckStore } from '../shared/adapters/dynamo/DynamoCheckStore';
import { DynamoShardLayout } from '../shared/adapters/dynamo/DynamoShardLayout';
import { emitAudit } from '../shared/adapters/telemetry/auditMetricsEmf';
import { createMetrics } from '../shared/adapters/telemetry/powertools';
import type { AuditDatapoint } from '../shared/audit';
import { auditDatapoints, auditTelemetry, MAX_SOURCE_BYTES } from '../shared/audit';
import type { AccountEntry } from '../shared/local/localConfig';
import { LOCAL_REGION, LOCAL_TABLE } from '../shared/local/localStore';
import { createLogger } from '../shared/log';
import { PROVIDERS } from '../shared/providers/presets';
import { auditEventsIn } from './auditEvents';
import { checkClient, startBenchServer } from './checkClient';
import { COST_BASIS } from './checkCost';
import { runDetectionBench } from './detection';
import { latencyStats, round } from './localServer';
import { PRICES } from './prices';
import { UsageMeter } from './usageMeter';

export interface AuditBenchOptions {
  /** Mailboxes of the stack; every check covers all of them. */
  accounts: AccountEntry[];
  /** Checks per condition in each round of the side-by-side detection runs, and checks of the audit's own phase. */
  checks: number;
  /**
   * Rounds of the side-by-side detection runs (default 1), each off, on, on, off with half the checks a run: each
   * run's p95 swings by tenths between runs of one condition (the audit's row in BENCHMARKS.md), so more rounds pool
   * more runs per condition.
   */
  rounds?: number;
  /** Checks of each condition's cost phase (polled every 5 s); 0 skips it. */
  costChecks: number;
  intervalMs: number;
  progress?: (line: string) => void;
}

type Condition = 'on' | 'off';
/** Bigger than the fetch's cap, so one check shows the cap holding. */
const LARGE_MESSAGE_BYTES = 700 * 1024;
/** How long the bench waits for a check's audit in its report before counting it as not there. */
const READY_DEADLINE_MS = 30_000;

/** What `emit` writes to stdout (the EMF lines Lambda's log ingests), in bytes, kept off the bench's own output. */
const stdoutBytesOf = (emit: () => void): number => {
  const write = process.stdout.write;
  let bytes = 0;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    bytes += Buffer.byteLength(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    emit();
  } finally {
    process.stdout.write = write;
  }
  return bytes;
};

type ReportAudit = { state: string; copy?: { fetched: string; bytes: number } };

export const runAuditBench = async (options: AuditBenchOptions) => {
  const { accounts, checks, intervalMs } = options;
  const say = options.progress ?? (() => undefined);
  const dns = await startDnsServer();
  const env = (audit: Condition) => ({ AUDIT: audit, DNS_SERVERS: dns.address });
  try {
    // Detection side by side: rounds of off, on, on, off, half the checks each, pooled per condition.
    const costs: Partial<Record<Condition, unknown>> = {};
    const half = Math.max(1, Math.ceil(checks / 2));
    const rounds = options.rounds ?? 1;
    const order = Array.from({ length: rounds }, () => ['off', 'on', 'on', 'off'] as const).flat();
    const runs: { audit: Condition; samples: number[] }[] = [];
    for (const [run, audit] of order.entries()) {
      say(`audit: detection with the audit ${audit} (run ${run + 1} of ${order.length})`);
      const samples: number[] = [];
      const result = await runDetectionBench({
        accounts,
        checks: half,
        costChecks: run < 2 ? options.costChecks : 0,
        intervalMs,
        env: env(audit),
        smtp: false,
        onLmtpSample: (ms) => samples.push(ms),
        progress: say,
      });
      if (run < 2) costs[audit] = result.cost;
      runs.push({ audit, samples });
    }
    const pooled = (audit: Condition) =>
      latencyStats(runs.filter((run) => run.audit === audit).flatMap((run) => run.samples));
    const detection = {
      order: rounds === 1 ? 'off, on, on, off' : `off, on, on, off, ${rounds} times`,
      runs: runs.map(({ audit, samples }) => ({ audit, p95Ms: latencyStats(samples).p95Ms })),
      off: pooled('off'),
      on: pooled('on'),
    };
    say(`  LMTP to GET p95: off ${detection.off.p95Ms} ms, on ${detection.on.p95Ms} ms`);

    // The audit itself: when it shows in the report, what it fetched, what the scan Lambda adds after it.
    say(`audit: ${checks} checks, each until its audit shows in the report`);
    const server = await startBenchServer(accounts, intervalMs, env('on'), ['bench/auditEvents.ts']);
    const client = checkClient(server);
    const { endpoint } = JSON.parse(readFileSync(join(server.dataDir, 'dynalite.json'), 'utf8')) as {
      endpoint: string;
    };
    const store = createDocumentClient({ region: LOCAL_REGION, endpoint });
    const metered = createDocumentClient({ region: LOCAL_REGION, endpoint });
    const meter = new UsageMeter();
    meter.attach(metered);
    const audits = new DynamoAuditStore(store, LOCAL_TABLE);
    const emitted: { points: number; bytes: number }[] = [];
    const metrics = createMetrics('scan');
    const telemetry = auditTelemetry({
      checks: new DynamoCheckStore(metered, LOCAL_TABLE, new DynamoShardLayout(metered, LOCAL_TABLE)),
      emit: (points) =>
        emitted.push({ points: points.length, bytes: stdoutBytesOf(() => emitAudit(metrics, points)) }),
      log: createLogger('bench', 'error', () => undefined),
    });
    const readyAfter: number[] = [];
    const fetchedBytes: number[] = [];
    const ids: string[] = [];
    let notReady = 0;
    let headersOnly = 0;
    let largeFetchedBytes: number | undefined;
    let worstPoints: AuditDatapoint[] = [];
    try {
      for (let run = 0; run < checks; run++) {
        const started = await client.start();
        ids.push(started.check_id);
        await pause(Math.random() * intervalMs);
        const large = run === checks - 1;
        const body = `bench ${run}\n${GTUBE}`;
        const text = large ? `${body}\n${`${'x'.repeat(78)}\n`.repeat(LARGE_MESSAGE_BYTES / 79)}` : body;
        const delivered = await deliverLmtp(started.accounts, { text });
        const first = Math.min(...delivered.values());
        let audit: ReportAudit = { state: 'pending' };
        while (audit.state === 'pending' && Date.now() - first < READY_DEADLINE_MS) {
          const response = await fetch(`${server.baseUrl}/api/spam-check/${started.check_id}/report`, {
            headers: { authorization: `Bearer ${server.key}` },
          });
          audit = ((await response.json()) as { audit?: ReportAudit }).audit ?? { state: 'absent' };
          if (audit.state === 'pending') await pause(25);
        }
        if (audit.state !== 'ready' || !audit.copy) {
          notReady++;
          continue;
        }
        readyAfter.push(Date.now() - first);
        fetchedBytes.push(audit.copy.bytes);
        if (audit.copy.fetched !== 'source') headersOnly++;
        if (large) largeFetchedBytes = audit.copy.bytes;
        const stored = await audits.get(started.check_id);
        if (stored?.state === 'ready') {
          const judged = {
            provider: stored.copy.provider,
            findings: stored.findings,
            checklists: stored.checklists,
          };
          await telemetry(started.check_id, judged);
          // The most a check emits: seeds at every preset.
          worstPoints = auditDatapoints(judged, PROVIDERS);
        }
      }
      // Let any audit still running finish before its events are read.
      await pause(intervalMs * 3);
    } finally {
      await server.stop().catch(() => undefined);
    }
    const events = auditEventsIn(server.output());
    const fetchesPer = ids.map((id) => events.filter((e) => e.kind === 'fetched' && e.checkId === id).length);
    const storedAfter = events.flatMap((e) =>
      e.kind === 'stored' && ids.includes(e.checkId) ? [e.afterMs] : [],
    );
    const reads = meter.report();
    const worstBytes = stdoutBytesOf(() => emitAudit(metrics, worstPoints));
    const lambdaOnly = {
      checkReadUnits: round(reads.readUnits / Math.max(1, emitted.length), 2),
      emfLines: round(emitted.reduce((sum, e) => sum + e.points, 0) / Math.max(1, emitted.length), 2),
      emfBytes: round(emitted.reduce((sum, e) => sum + e.bytes, 0) / Math.max(1, emitted.length)),
      emfBytesAllPresets: worstBytes,
    };
    const lambdaOnlyDollars =
      lambdaOnly.checkReadUnits * PRICES.dynamoReadRequestUnit +
      (lambdaOnly.emfBytesAllPresets / 2 ** 30) * PRICES.cloudWatchLogsIngestGb;
    say(
      `  report shows the audit after: ${JSON.stringify(latencyStats(readyAfter))}; fetches per check: ${fetchesPer.join(',')}`,
    );
    return {
      benchmark: 'audit',
      checks,
      accountsPerCheck: accounts.length,
      scanIntervalMs: intervalMs,
      detection,
      /** From the first copy's LMTP delivery returning to GET .../report showing the audit ready. */
      reportReady: { ...latencyStats(readyAfter), notReady },
      /** Inside npm start: from the first copy's record to the audit stored. */
      recordedToStored: latencyStats(storedAfter),
      fetches: {
        checks: ids.length,
        perCheckMax: Math.max(...fetchesPer),
        perCheckMin: Math.min(...fetchesPer),
        checksWithOne: fetchesPer.filter((n) => n === 1).length,
        bytesMax: Math.max(...fetchedBytes),
        capBytes: MAX_SOURCE_BYTES,
        largeMessageBytes: LARGE_MESSAGE_BYTES,
        largeFetchedBytes,
        headersOnly,
      },
      cost: {
        checks: options.costChecks,
        off: costs.off,
        on: costs.on,
        lambdaOnly: { ...lambdaOnly, dollarsAllPresets: Number(lambdaOnlyDollars.toPrecision(3)) },
        ...COST_BASIS,
      },
    };
  } finally {
    await dns.stop();
  }
};
