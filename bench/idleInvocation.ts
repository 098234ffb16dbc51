// Benchmark support: what one scheduled scanner invocation costs when no check is open, measured on dynalite with
// the composition root's scanner and credential store: its duration, DynamoDB units, secret reads, the metrics it
// emits (EMF records, captured from stdout) and the bytes it logs at the deployed log level.
import { randomBytes } from 'node:crypto';
import { SecretAccountEntries } from '../shared/adapters/credentials/accountEntries';
import { ItemCredentialSource } from '../shared/adapters/credentials/ItemCredentialSource';
import { ItemCredentialStore } from '../shared/adapters/credentials/ItemCredentialStore';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { DynamoShardLayout } from '../shared/adapters/dynamo/DynamoShardLayout';
import { EnvelopeSealer } from '../shared/adapters/keys/EnvelopeSealer';
import { fileKeyring } from '../shared/adapters/keys/keyrings';
import { createMetrics, scanMetrics } from '../shared/adapters/telemetry/powertools';
import { loopTiming } from '../shared/composition/loopTiming';
import { createScanner } from '../shared/composition/scanner';
import { DEFAULT_SCAN_INTERVAL_MS, DEFAULT_SCAN_SHARD_SIZE } from '../shared/config';
import { systemClock } from '../shared/domain/clock';
import { ensureTable } from '../shared/local/bootstrap';
import { startDynalite } from '../shared/local/dynalite';
import { createLogger } from '../shared/log';
import { DEADLINE_MARGIN_MS, runScanLoop } from '../shared/scanner/scanLoop';
import { shardCountFor } from '../shared/scanner/shards';
import { SERVICES } from '../shared/telemetry/metrics';
import { UsageMeter } from './usageMeter';

const TABLE = 'bench-idle';

/** Stands in for Secrets Manager: the credentials secret after `accounts sync`, holding only the item key. */
const movedSecret = () => {
  let reads = 0;
  const client = {
    send: async () => {
      reads++;
      return { SecretString: JSON.stringify({ accounts: [] }), VersionId: 'v1' };
    },
  };
  return { client: client as never, reads: () => reads };
};

/** Runs `work` with stdout captured line by line: EMF records and log lines, as CloudWatch Logs would take them. */
const capturingStdout = async (work: () => Promise<void>): Promise<string[]> => {
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  }) as typeof process.stdout.write;
  try {
    await work();
  } finally {
    process.stdout.write = write;
  }
  return lines;
};

/** The metric names (with their dimension names) of the EMF records among `lines`. */
const metricsIn = (lines: readonly string[]): string[] =>
  lines.flatMap((line) => {
    try {
      const record = JSON.parse(line) as {
        _aws?: { CloudWatchMetrics?: { Dimensions: string[][]; Metrics: { Name: string }[] }[] };
      };
      return (record._aws?.CloudWatchMetrics ?? []).flatMap((directive) =>
        directive.Metrics.map((metric) => `${metric.Name}[${directive.Dimensions.flat().join(',')}]`),
      );
    } catch {
      return [];
    }
  });

export const measureIdleInvocations = async (runs: number) => {
  const dynamo = await startDynalite({});
  const client = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
  await ensureTable(client, TABLE);
  const meter = new UsageMeter();
  meter.attach(client);
  const secret = movedSecret();
  // As on Lambda (shared/composition/scanLambda.ts): the layout published from the credential count, one loop.
  const credentials = new ItemCredentialStore(
    client,
    TABLE,
    new SecretAccountEntries(secret.client, 'idle'),
    { clock: systemClock, sealer: new EnvelopeSealer(fileKeyring(randomBytes(32))) },
  );
  const layout = new DynamoShardLayout(client, TABLE);
  const timing = loopTiming(DEFAULT_SCAN_INTERVAL_MS, DEADLINE_MARGIN_MS);
  const durations: number[] = [];
  const lines = await capturingStdout(async () => {
    for (let run = 0; run < runs; run++) {
      // A fresh container each time (nothing cached), as the minute schedule mostly meets after a quiet spell.
      credentials.forget();
      const log = createLogger(SERVICES.scan, 'info');
      const metrics = scanMetrics(createMetrics(SERVICES.scan));
      const { scanner, lease } = createScanner({
        client,
        tableName: TABLE,
        credentials: new ItemCredentialSource(credentials, systemClock),
        clock: systemClock,
        log,
        events: metrics,
      });
      const began = performance.now();
      await layout.publish(
        shardCountFor(await credentials.count(), DEFAULT_SCAN_SHARD_SIZE),
        systemClock.now(),
      );
      const report = await runScanLoop(
        { scanner, lease, clock: systemClock, log },
        // As functions/scan.ts runs the schedule's loop: no grace when idle, no wait for the lease.
        { ...timing, owner: `idle-${run}`, deadline: Date.now() + 60_000, idleGraceMs: 0, acquireWaitMs: 0 },
        undefined,
        () => metrics.flush(),
      );
      metrics.flush();
      log.info('scan loop ended', { wake: 'schedule', ...report });
      durations.push(performance.now() - began);
      await scanner.close();
    }
  });
  const usage = meter.report();
  client.destroy();
  await dynamo.close();
  const sorted = [...durations].sort((a, b) => a - b);
  return {
    runs,
    medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
    readUnits: usage.readUnits / runs,
    writeUnits: (usage.writeUnits + usage.indexWriteUnits) / runs,
    secretReads: secret.reads() / runs,
    logBytes: lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0) / runs,
    metrics: [...new Set(metricsIn(lines))].sort(),
  };
};
