// Owns the wake-up benchmark: stream batches of one new check each (the worst case), handled one after another as
// Lambda handles one shard of a stream, against a dynalite thread while a loop holds the lease: each wake-up's own
// time and the records handled a second, beside the 10 a second that 600 starts a minute bring.

import { driveWakeUps } from '../scripts/lib/wakeUpDrive';
import { createDocumentClient } from '../shared/adapters/dynamo/client';
import { ensureTable } from '../shared/local/bootstrap';
import { startDynaliteThread } from '../shared/local/dynalite';
import { percentile, round, runIfMain } from './localServer';

const TABLE = 'bench-wake-up';

/** 600 starts a minute: the rate the wake-up must keep up with, in records a second. */
const ARRIVALS_PER_SEC = 600 / 60;

export const runWakeUpBench = async (options: { records?: number } = {}) => {
  const records = options.records ?? 600;
  const dynamo = await startDynaliteThread({ port: 0 });
  const connection = { region: 'local', endpoint: dynamo.endpoint };
  try {
    const client = createDocumentClient(connection);
    await ensureTable(client, TABLE);
    client.destroy();
    const drive = await driveWakeUps({ connection, tableName: TABLE, records });
    const sorted = [...drive.durationsMs].sort((a, b) => a - b);
    const recordsPerSec = round(records / (drive.elapsedMs / 1000), 1);
    const requests = Object.values(drive.commands).reduce((sum, count) => sum + count, 0);
    return {
      records,
      store: 'dynalite (worker thread)',
      handlerMs: {
        p50: round(percentile(sorted, 50)),
        p99: round(percentile(sorted, 99)),
        max: round(sorted.at(-1) ?? Number.NaN),
      },
      recordsPerSec,
      arrivalsPerSec: ARRIVALS_PER_SEC,
      /** How many times over the wake-up handles 600 starts a minute, one record at a time. */
      headroom: round(recordsPerSec / ARRIVALS_PER_SEC, 1),
      dynamoRequestsPerRecord: round(requests / records, 2),
      loopsStarted: drive.starts,
      loopStillRunning: drive.loopStillRunning,
    };
  } finally {
    await dynamo.close();
  }
};

runIfMain(import.meta.url, () => runWakeUpBench());
