// Benchmark support: what checks cost the service, from two of npm start's usage reports and the handler timings,
// at list prices (DynamoDB request units, Lambda GB-seconds and requests, API Gateway requests), per check and per
// operation.
import { DEFAULT_SETTINGS } from '../infra/settings';
import { pause } from '../scripts/lib/poll';
import type { takeHandlerTimings } from './api';
import { type LocalServer, round } from './localServer';
import { PRICES } from './prices';
import { USAGE_REPORT_PREFIX } from './usageMeter';

export interface UsageReport {
  dynamo: {
    readUnits: number;
    writeUnits: number;
    indexWriteUnits: number;
    reads: Record<string, { calls: number; units: number }>;
    writes: Record<string, { calls: number; units: number }>;
    indexWrites: Record<string, { calls: number; units: number }>;
  };
  scanner: { runs: number; runMs: number };
  /** The sender audit's source fetches, audits stored and their time from the copy's record to stored (summed). */
  audit?: { fetches: number; audits: number; auditMs: number };
}

/** Asks the server for its usage line (SIGUSR2) and waits for the new one. */
export const usageOf = async (server: LocalServer): Promise<UsageReport> => {
  const before = server.output().split(USAGE_REPORT_PREFIX).length;
  process.kill(server.pid, 'SIGUSR2');
  for (let waited = 0; waited < 5000; waited += 20) {
    const parts = server.output().split(USAGE_REPORT_PREFIX);
    if (parts.length > before) return JSON.parse((parts.at(-1) as string).split('\n')[0] as string);
    await pause(20);
  }
  throw new Error('the server printed no usage report');
};

/** Memory of the functions in infra (ServiceFunction default 256 MB; the scanner's from its deploy setting). */
const API_GB = 256 / 1024;
const SCANNER_GB = DEFAULT_SETTINGS.scannerMemoryMb / 1024;
/**
 * dynalite reports a write's units for the table only; DynamoDB also bills each write's copy into a secondary index.
 * The server's meter counts those from what each write touched (bench/indexWrites.ts): an open check's small
 * entry in gsi2 (per KB of its projected attributes), an account's whole item in gsi1, nothing for other items.
 */
const INDEX_WRITES = 'counted per write from the projected attributes (bench/indexWrites.ts)';

/**
 * What `n` checks cost between two usage reports, per check, at list prices: the measured counts, each price, and
 * each product, so BENCHMARKS.md can show the arithmetic.
 */
export const costBetween = (
  before: UsageReport,
  after: UsageReport,
  timings: Awaited<ReturnType<typeof takeHandlerTimings>>,
  n: number,
) => {
  const readUnits = (after.dynamo.readUnits - before.dynamo.readUnits) / n;
  const tableWriteUnits = (after.dynamo.writeUnits - before.dynamo.writeUnits) / n;
  const indexWriteUnits = (after.dynamo.indexWriteUnits - before.dynamo.indexWriteUnits) / n;
  const writeUnits = tableWriteUnits + indexWriteUnits;
  const scannerMs = (after.scanner.runMs - before.scanner.runMs) / n;
  // Lambda bills each invocation's duration rounded up to the millisecond.
  const billed = (calls: [at: number, ms: number][] = []) =>
    calls.reduce((sum, [, ms]) => sum + Math.ceil(ms), 0);
  const apiMs = (billed(timings.start) + billed(timings.get)) / n;
  const apiCalls = ((timings.start?.length ?? 0) + (timings.get?.length ?? 0)) / n;
  const scannerRuns = (after.scanner.runs - before.scanner.runs) / n;
  const apiGbSeconds = (apiMs / 1000) * API_GB;
  const scannerGbSeconds = (scannerMs / 1000) * SCANNER_GB;
  // The sender audit's share beyond its DynamoDB units (already in the counts above): its time, from the copy's
  // record to the audit stored (the source fetch and the DNS budget), billed as scanner time. An upper bound: on Lambda
  // it runs inside an invocation the loop holds anyway. Its DNS costs nothing: the function is in no VPC, and the
  // resolver Lambda gives it is not billed.
  const audits = (field: 'fetches' | 'audits' | 'auditMs') =>
    ((after.audit?.[field] ?? 0) - (before.audit?.[field] ?? 0)) / n;
  const auditGbSeconds = (audits('auditMs') / 1000) * SCANNER_GB;
  const dollars = {
    dynamoReads: readUnits * PRICES.dynamoReadRequestUnit,
    dynamoWrites: writeUnits * PRICES.dynamoWriteRequestUnit,
    apiLambda: apiGbSeconds * PRICES.lambdaArmGbSecond + apiCalls * PRICES.lambdaRequest,
    // Every start and get came through the HTTP API first.
    apiGateway: apiCalls * PRICES.apiGatewayHttpRequest,
    scannerLambda: scannerGbSeconds * PRICES.lambdaArmGbSecond + scannerRuns * PRICES.lambdaRequest,
    audit: auditGbSeconds * PRICES.lambdaArmGbSecond,
  };
  const total = Object.values(dollars).reduce((sum, value) => sum + value, 0);
  // Per operation, per check: which calls the units came from.
  const operations = (kind: 'reads' | 'writes' | 'indexWrites') =>
    Object.fromEntries(
      Object.entries(after.dynamo[kind]).map(([name, usage]) => {
        const earlier = before.dynamo[kind][name] ?? { calls: 0, units: 0 };
        return [
          name,
          {
            calls: round((usage.calls - earlier.calls) / n),
            units: round((usage.units - earlier.units) / n),
          },
        ];
      }),
    );
  return {
    dynamoReadUnits: round(readUnits),
    dynamoTableWriteUnits: round(tableWriteUnits),
    dynamoIndexWriteUnits: round(indexWriteUnits),
    dynamoWriteUnits: round(writeUnits),
    apiCalls: round(apiCalls),
    apiMemoryMb: API_GB * 1024,
    scannerMemoryMb: SCANNER_GB * 1024,
    apiHandlerMs: round(apiMs),
    apiGbSeconds: Number(apiGbSeconds.toPrecision(4)),
    scannerLoopMs: round(scannerMs),
    scannerGbSeconds: Number(scannerGbSeconds.toPrecision(4)),
    scannerInvocations: round(scannerRuns, 2),
    audits: round(audits('audits'), 2),
    auditFetches: round(audits('fetches'), 2),
    auditMs: round(audits('auditMs')),
    auditGbSeconds: Number(auditGbSeconds.toPrecision(4)),
    dollars: Object.fromEntries(
      Object.entries(dollars).map(([name, value]) => [name, Number(value.toPrecision(3))]),
    ),
    totalDollars: Number(total.toPrecision(3)),
    dynamoOperations: {
      reads: operations('reads'),
      writes: operations('writes'),
      indexWrites: operations('indexWrites'),
    },
  };
};

/** The prices, memory sizes and index-write rule the figures were computed with, reported beside them. */
export const COST_BASIS = {
  prices: PRICES,
  memoryMb: { api: API_GB * 1024, scanner: SCANNER_GB * 1024 },
  indexWrites: INDEX_WRITES,
};
