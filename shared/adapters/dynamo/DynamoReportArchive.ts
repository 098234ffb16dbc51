// Owns the report archive in DynamoDB (reportArchive.ts): each ended check's report in its own item, and a small
// entry in its scope's history partition for the newest-first listing; both carry the TTL, and reads also skip
// what has expired, as TTL deletes late.
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { PlacementReport } from '../../domain/placementReport';
import {
  type ArchivedReport,
  HistoryCursorError,
  type HistoryEntry,
  type HistoryPage,
  historyEntryOf,
  type ReportArchive,
} from '../../domain/reportArchive';
import { getAll } from './batchGet';
import { putRequest, writeAll } from './batchWrite';
import {
  archivedReportKey,
  historyEntryKey,
  historyPartition,
  monitorHistoryKey,
  monitorHistoryPartition,
} from './keys';

/** An item holds at most 400 KB: a report past this keeps each copy's placement only, not why it landed there. */
const MAX_REPORT_CHARS = 300_000;
/** A cursor is a history sort key: 15 digits, '#', a check id; anything else is refused before it reaches a query. */
const CURSOR_PATTERN = /^\d{15}#[a-z2-7]{20}$/;

const reportText = (report: PlacementReport): string => {
  const { audit: _audit, ...kept } = report;
  const whole = JSON.stringify(kept);
  if (whole.length <= MAX_REPORT_CHARS) return whole;
  const accounts = report.accounts.map(({ email, provider, category, folder, suspect }) => ({
    email,
    provider,
    category,
    folder,
    ...(suspect === undefined ? {} : { suspect }),
  }));
  return JSON.stringify({ ...kept, accounts });
};

const encodeCursor = (sortKey: string) => Buffer.from(sortKey, 'utf8').toString('base64url');
const decodeCursor = (cursor: string): string => {
  const sortKey = cursor.length <= 64 ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!CURSOR_PATTERN.test(sortKey)) throw new HistoryCursorError();
  return sortKey;
};

const epochSeconds = (ms: number) => Math.ceil(ms / 1000);

export class DynamoReportArchive implements ReportArchive {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put({ scope, report, expiresAt, monitor }: ArchivedReport): Promise<void> {
    const createdAt = Date.parse(report.started_at);
    const common = {
      scope,
      checkId: report.check_id,
      createdAt,
      expiresAt,
      purgeAt: epochSeconds(expiresAt),
    };
    const entry = JSON.stringify(historyEntryOf(report, monitor));
    await writeAll(this.client, this.tableName, [
      putRequest({ ...archivedReportKey(report.check_id), ...common, report: reportText(report) }),
      putRequest({ ...historyEntryKey(scope, createdAt, report.check_id), ...common, entry }),
      // A monitor's run is listed twice: in the scope's history and in its monitor's own.
      ...(monitor
        ? [putRequest({ ...monitorHistoryKey(scope, monitor, createdAt, report.check_id), ...common, entry })]
        : []),
    ]);
  }

  async get(scope: string, checkIds: readonly string[], now: number): Promise<Map<string, PlacementReport>> {
    const unique = [...new Set(checkIds)];
    const items = await getAll(this.client, this.tableName, unique.map(archivedReportKey));
    const found = new Map<string, PlacementReport>();
    for (const item of items)
      if (item.scope === scope && Number(item.expiresAt) > now && typeof item.report === 'string')
        found.set(String(item.checkId), JSON.parse(item.report) as PlacementReport);
    return found;
  }

  async list(
    scope: string,
    now: number,
    limit: number,
    cursor?: string,
    monitor?: string,
  ): Promise<HistoryPage> {
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const checks: HistoryEntry[] = [];
    const partition =
      monitor === undefined ? historyPartition(scope) : monitorHistoryPartition(scope, monitor);
    let start = after === undefined ? undefined : { pk: partition, sk: after };
    let last: string | undefined;
    // Expired entries TTL has not deleted yet are skipped, so a page may take more than one query to fill.
    do {
      const { Items = [], LastEvaluatedKey } = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': partition, ':now': now },
          FilterExpression: 'expiresAt > :now',
          ScanIndexForward: false,
          Limit: limit - checks.length,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of Items) {
        checks.push(JSON.parse(String(item.entry)) as HistoryEntry);
        last = String(item.sk);
      }
      start = LastEvaluatedKey as typeof start;
      if (start) last = String(start.sk);
    } while (start && checks.length < limit);
    return { checks, next: start && last ? encodeCursor(last) : null };
  }
}
