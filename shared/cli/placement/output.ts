// Owns how a check's outcome is shown: a table of accounts with an inbox-rate line for people, one JSON object for
// machines, and the live progress line on stderr while polling.

import { lookFirst } from '../../calibration';
import { type CheckView, inboxRate, type PlacementReport } from '../../client';
import { isInbox } from '../../domain/categories';
import { every } from '../../domain/timer';
import { withSnakeKeys } from '../../domain/wireKeys';
import { formatTable } from '../listingTable';
import { coverageOf } from './coverage';

export const percent = (rate: number) => `${Math.round(rate * 1000) / 10}%`;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const summaryLine = (check: CheckView, elapsedMs: number): string => {
  const inbox = check.results.filter((result) => isInbox(result.category)).length;
  const outcome =
    check.status === 'complete'
      ? `check ${check.check_id} complete after ${seconds(elapsedMs)}`
      : check.status === 'timeout'
        ? `check ${check.check_id} timed out: ${check.total - check.received} of ${check.total} never received the message`
        : `check ${check.check_id} still pending after ${seconds(elapsedMs)}: ${check.received} of ${check.total} received`;
  return `inbox rate ${percent(inboxRate(check))} (${inbox} of ${check.total} in primary or updates); ${outcome}`;
};

export const tableReport = (check: CheckView, elapsedMs: number): string =>
  [
    formatTable(
      check.results.map((result) => ({
        email: result.email,
        category: result.category,
        inbox: isInbox(result.category) ? 'yes' : 'no',
      })),
      ['email', 'category', 'inbox'],
    ),
    '',
    summaryLine(check, elapsedMs),
  ].join('\n');

const coverageJson = (report: PlacementReport) => {
  const { checked, notChecked, unexplained, everythingChecked } = coverageOf(report);
  return { checked, not_checked: notChecked, unexplained, everything_checked: everythingChecked };
};

export const jsonReport = (
  check: CheckView,
  elapsedMs: number,
  report: PlacementReport | null = null,
  /** The gate's fields (assertions, baseline) where --assert or --baseline was given. */
  gate: Record<string, unknown> = {},
): string =>
  JSON.stringify({
    check_id: check.check_id,
    status: check.status,
    received: check.received,
    total: check.total,
    inbox_rate: inboxRate(check),
    results: check.results,
    elapsed_ms: elapsedMs,
    /** The placement report (why each copy landed where it did), null when the service gave none. */
    report,
    /** Where the message went to spam: what to look at first, set beside the control (null without a report). */
    look_first: report ? withSnakeKeys(lookFirst(report)) : null,
    /** What the receivers checked and what they did not (null without a report); the audit is report.audit. */
    coverage: report ? coverageJson(report) : null,
    ...gate,
  });

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * On a terminal one line redrawn every second (received/total, elapsed); elsewhere a plain line whenever the
 * count changes, so logs of CI runs stay short.
 */
export const createProgress = (stream: ProgressStream, checkId: string, startedAt: number) => {
  let last: Pick<CheckView, 'received' | 'total'> | undefined;
  let printed = '';
  const line = () =>
    `check ${checkId}: ${last ? `${last.received}/${last.total} received` : 'waiting'}, ${Math.floor((Date.now() - startedAt) / 1000)} s`;
  const redraw = () => stream.write(`\r\x1b[2K${line()}`);
  const ticker = stream.isTTY ? every(1000, redraw) : undefined;
  return {
    update(check: CheckView) {
      const state = `${check.received}/${check.total}`;
      last = check;
      if (stream.isTTY) redraw();
      else if (state !== printed) stream.write(`${line()}\n`);
      printed = state;
    },
    stop() {
      ticker?.cancel();
      if (stream.isTTY) stream.write(`\r\x1b[2K${line()}\n`);
    },
  };
};
