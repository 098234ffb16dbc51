// Owns driving the stream's wake-up as the table's stream would under many starts, with a loop holding the lease:
// what test/adapters/wakeUp.test.ts asserts and `npm run bench -- --only wake-up` measures.
import { createDocumentClient, type DynamoConnection } from '../../shared/adapters/dynamo/client';
import { DynamoLease } from '../../shared/adapters/dynamo/DynamoLease';
import { scannerLeaseOf } from '../../shared/composition/scanner';
import { composeWakeUp } from '../../shared/composition/wakeUp';
import { systemClock } from '../../shared/domain/clock';
import { createLogger } from '../../shared/log';
import type { WakeUpReport } from '../../shared/scanner/invocation';
import { runScanLoop, type ScanLoopReport } from '../../shared/scanner/scanLoop';
import { SINGLE_SHARD } from '../../shared/scanner/shards';
import { pause } from './poll';

export interface WakeUpDrive {
  /** Each wake-up's own time, in the order they were handled. */
  durationsMs: number[];
  /** From the first wake-up's start to the last one's return. */
  elapsedMs: number;
  reports: WakeUpReport[];
  /** Loops the wake-ups asked to start. */
  starts: number;
  /** The requests the wake-ups sent DynamoDB, by command. */
  commands: Record<string, number>;
  /** True when the loop still ran, holding its lease, after the last wake-up returned: none waited for it. */
  loopStillRunning: boolean;
  loop: ScanLoopReport;
}

/** A loop with work for as long as it runs: it holds and renews the lease, as a loop sweeping mailboxes does. */
const busyScanner = {
  tick: async () => ({ activeChecks: 1, pendingAccounts: 1, heldAccounts: 1, started: [] }),
  close: async () => undefined,
};

/**
 * Starts a loop on `tableName` and, once it holds the lease, hands `records` stream batches of one new check each to
 * the wake-up, one after another as Lambda does for one shard of a stream: the slowest way through a burst.
 */
export const driveWakeUps = async (options: {
  connection: DynamoConnection;
  tableName: string;
  records: number;
  intervalMs?: number;
}): Promise<WakeUpDrive> => {
  const { connection, tableName, records } = options;
  const intervalMs = options.intervalMs ?? 100;
  const loopClient = createDocumentClient(connection);
  const wakeClient = createDocumentClient(connection);
  const commands: Record<string, number> = {};
  wakeClient.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? 'unknown';
      commands[name] = (commands[name] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name: 'countWakeUpCommands' },
  );
  let starts = 0;
  const wakeUp = composeWakeUp({
    client: wakeClient,
    tableName,
    clock: systemClock,
    start: async () => {
      starts++;
      return true;
    },
  });
  const lease = new DynamoLease(loopClient, tableName, scannerLeaseOf(SINGLE_SHARD));
  const stop = new AbortController();
  let loopEnded = false;
  const loop = runScanLoop(
    { scanner: busyScanner, lease, clock: systemClock, log: createLogger('wake-up-drive', 'error') },
    {
      owner: 'running-loop',
      intervalMs,
      deadline: Date.now() + 60 * 60_000,
      leaseTtlMs: intervalMs * 20,
      idleGraceMs: 0,
    },
    stop.signal,
  ).finally(() => {
    loopEnded = true;
  });
  try {
    const heldBy = Date.now() + 30_000;
    while (!(await lease.heldAt(Date.now()))) {
      if (loopEnded || Date.now() > heldBy) throw new Error('the running loop never took its lease');
      await pause(intervalMs);
    }
    const durationsMs: number[] = [];
    const reports: WakeUpReport[] = [];
    const began = performance.now();
    for (let record = 0; record < records; record++) {
      const at = performance.now();
      reports.push(await wakeUp(`drive-${record}`));
      durationsMs.push(performance.now() - at);
    }
    const elapsedMs = performance.now() - began;
    const loopStillRunning = !loopEnded && (await lease.heldAt(Date.now()));
    stop.abort();
    return { durationsMs, elapsedMs, reports, starts, commands, loopStillRunning, loop: await loop };
  } finally {
    stop.abort();
    await loop.catch(() => undefined);
    loopClient.destroy();
    wakeClient.destroy();
  }
};
