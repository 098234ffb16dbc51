// Owns the seeds' calibration history and the scopes' control runs in DynamoDB: written once per calibration,
// read newest first (a seed's latest few for the suspect rule, a scope's latest run for the report).
import { type DynamoDBDocumentClient, paginateQuery, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ControlRun, SeedCalibration } from '../../calibration';
import type { SeedHistoryStore } from '../../domain/ports';
import { putRequest, writeAll } from './batchWrite';
import {
  CONTROL_RUN_SORT_PREFIX,
  controlRunPartition,
  SEED_HISTORY_SORT_PREFIX,
  seedHistoryPartition,
} from './keys';
import {
  controlRunFromItem,
  controlRunToItem,
  seedCalibrationFromItem,
  seedCalibrationToItem,
} from './seedHistoryItem';

/** A history longer than this is not read: 30 days of calibrations every hour stay under it. */
const MAX_HISTORY = 1000;

export class DynamoSeedHistory implements SeedHistoryStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async record(entries: readonly SeedCalibration[]): Promise<void> {
    await writeAll(
      this.client,
      this.tableName,
      entries.map((entry) => putRequest(seedCalibrationToItem(entry))),
    );
  }

  async historyOf(email: string, limit = MAX_HISTORY): Promise<SeedCalibration[]> {
    const history: SeedCalibration[] = [];
    const pages = paginateQuery(
      { client: this.client, pageSize: Math.min(limit, 100) },
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': seedHistoryPartition(email),
          ':prefix': SEED_HISTORY_SORT_PREFIX,
        },
        ScanIndexForward: false,
        ConsistentRead: true,
      },
    );
    for await (const page of pages) {
      history.push(...(page.Items ?? []).map(seedCalibrationFromItem));
      if (history.length >= limit) break;
    }
    return history.slice(0, limit);
  }

  async recordRun(run: ControlRun): Promise<void> {
    await writeAll(this.client, this.tableName, [putRequest(controlRunToItem(run))]);
  }

  async latestRun(scope: string): Promise<ControlRun | undefined> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': controlRunPartition(scope), ':prefix': CONTROL_RUN_SORT_PREFIX },
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    const item = Items?.[0];
    return item ? controlRunFromItem(item) : undefined;
  }
}
