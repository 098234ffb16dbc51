// Owns the archive of ended checks' reports (an addition): what is kept of each, the history's page, and the port a
// store implements. Kept apart from the check, which is gone after 10 minutes as the contract says.
import type { CheckStatus } from './check';
import { fixedError } from './errors';
import type { PlacementReport, RateInterval } from './placementReport';
import { inboxOfTotal } from './seedSeries';

/** REPORT_RETENTION_DAYS where nothing sets it; 0 keeps no archive. */
export const DEFAULT_REPORT_RETENTION_DAYS = 30;
export const MAX_REPORT_RETENTION_DAYS = 3650;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** One ended check's report as kept, with its scope and when it may be forgotten. */
export interface ArchivedReport {
  scope: string;
  report: PlacementReport;
  /** Epoch ms after which it is no longer served (DynamoDB's TTL removes it later). */
  expiresAt: number;
  /** The monitor whose run it was: the history also lists it under `?monitor=`. */
  monitor?: string | undefined;
}

/** One check in the history: enough to choose checks to compare, without reading each report. */
export interface HistoryEntry {
  check_id: string;
  status: CheckStatus;
  started_at: string;
  completed_at: string | null;
  total: number;
  received: number;
  /** Inbox copies over every seed not suspect (of_total), with its Wilson interval. */
  inbox: RateInterval;
  /** The monitor whose run it was (an addition); absent for a check started through the API. */
  monitor?: string;
}

export interface HistoryPage {
  /** Newest first. */
  checks: HistoryEntry[];
  /** Pass as `cursor` for the next page; null on the last. */
  next: string | null;
}

/** At most this many entries a page, and this many ids a side of a comparison. */
export const MAX_HISTORY_PAGE = 100;
export const DEFAULT_HISTORY_PAGE = 20;
export const MAX_SERIES_CHECKS = 50;

/** A history cursor this service did not give (or a stale format): 400, never passed to the store. */
export class HistoryCursorError extends fixedError(400, 'cursor is not one this service gave') {}

export interface ReportArchive {
  /** Keeps the report (writing it again is harmless: an ended check's report is the same). */
  put(entry: ArchivedReport): Promise<void>;
  /** The kept reports of these ids in this scope not expired at `now`, by check id; others are absent. */
  get(scope: string, checkIds: readonly string[], now: number): Promise<Map<string, PlacementReport>>;
  /**
   * The scope's kept checks not expired at `now`, newest first, `limit` at most, after `cursor` (from `next`);
   * with `monitor`, that monitor's runs only.
   */
  list(scope: string, now: number, limit: number, cursor?: string, monitor?: string): Promise<HistoryPage>;
}

export const historyEntryOf = (report: PlacementReport, monitor?: string): HistoryEntry => ({
  check_id: report.check_id,
  status: report.status,
  started_at: report.started_at,
  completed_at: report.completed_at,
  total: report.summary.total,
  received: report.summary.received,
  inbox: inboxOfTotal(report),
  ...(monitor ? { monitor } : {}),
});
