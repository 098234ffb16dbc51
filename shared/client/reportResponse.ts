// Owns the client's view of the placement report (GET /api/spam-check/{check_id}/report, an addition to the spec):
// its type, from the service's domain, and checking a response body against it before anyone renders it.
import { isCategory } from '../domain/categories';

import type * as report from '../domain/placementReport';

/**
 * A check's placement report: where each copy landed and why, per provider, with the sender audit.
 *
 * @example
 * ```ts
 * const report: PlacementReport = await client.getReport(checkId);
 * console.log(report.summary.rates.inbox.rate, report.audit?.state);
 * ```
 */
export type PlacementReport = report.PlacementReport;

/**
 * The report's sender audit: pending, unavailable (and why), or ready with findings, in snake_case (the 1.0 camelCase
 * fields beside, deprecated).
 *
 * @example
 * ```ts
 * const audit: ReportAudit | undefined = report.audit;
 * if (audit?.state === 'ready') for (const step of audit.fix_first) console.log(step.fix);
 * ```
 */
export type ReportAudit = report.WireAudit;

/**
 * One test account in the report: its provider, category, folder, timings and what its receiver said.
 *
 * @example
 * ```ts
 * for (const account of report.accounts) console.log(account.email, account.category, account.folder);
 * ```
 */
export type ReportAccount = report.ReportAccount;

/**
 * One provider's counts in the report, with its inbox and spam rates and its latest control.
 *
 * @example
 * ```ts
 * const gmail: ProviderSummary | undefined = report.summary.by_provider.gmail;
 * console.log(gmail?.rates.inbox.rate);
 * ```
 */
export type ProviderSummary = report.ProviderSummary;

/**
 * Where the provider's latest control message landed, or null when there is none.
 *
 * @example
 * ```ts
 * const control: ControlPlacement | null | undefined = report.summary.by_provider.gmail?.control;
 * if (control) console.log(control.inbox, 'of', control.total);
 * ```
 */
export type ControlPlacement = report.ControlPlacement;

/**
 * What the receiving side wrote of SPF, DKIM, DMARC and ARC for one copy, with each result's reason.
 *
 * @example
 * ```ts
 * const auth: AuthVerdict | null = report.accounts[0]?.auth ?? null;
 * if (auth?.dmarc === 'fail') console.log(auth.reasons.dmarc);
 * ```
 */
export type AuthVerdict = report.AuthVerdict;

/**
 * One authentication result as the receiver wrote it (`pass`, `fail`, `none`…), or null.
 *
 * @example
 * ```ts
 * const spf: AuthResult | null | undefined = report.accounts[0]?.auth?.spf;
 * ```
 */
export type AuthResult = report.AuthResult;

/**
 * Why each authentication result came out as it did, as the receiver wrote it; null where it gave none.
 *
 * @example
 * ```ts
 * const reasons: AuthReasons | undefined = report.accounts[0]?.auth?.reasons;
 * console.log(reasons?.spf);
 * ```
 */
export type AuthReasons = report.AuthReasons;

/**
 * The receiver's own spam verdict for a copy (its score or flag), or null when it wrote none.
 *
 * @example
 * ```ts
 * const spam: SpamVerdict | null | undefined = report.accounts[0]?.spam;
 * ```
 */
export type SpamVerdict = report.SpamVerdict;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;
const isStringOrNull = (value: unknown) => value === null || typeof value === 'string';

/** Why one account row is not a report account, or undefined. */
const accountProblem = (account: unknown): string | undefined => {
  if (!isRecord(account) || typeof account.email !== 'string') return 'an account has no email';
  if (typeof account.provider !== 'string') return `${account.email}: provider is missing`;
  if (typeof account.category !== 'string' || !isCategory(account.category))
    return `${account.email}: category ${JSON.stringify(account.category)} is not one of the spec's categories`;
  if (!isStringOrNull(account.folder)) return `${account.email}: folder is not a string or null`;
  if (account.auth !== null && !isRecord(account.auth))
    return `${account.email}: auth is not an object or null`;
  if (isRecord(account.auth))
    for (const method of ['spf', 'dkim', 'dmarc', 'arc'])
      if (!isStringOrNull(account.auth[method])) return `${account.email}: auth.${method} is not a result`;
  if (isRecord(account.auth)) {
    const reasons = account.auth.reasons;
    if (!isRecord(reasons)) return `${account.email}: auth.reasons is not an object`;
    for (const method of ['spf', 'dkim', 'dmarc', 'arc'])
      if (!isStringOrNull(reasons[method])) return `${account.email}: auth.reasons.${method} is not a reason`;
  }
  if (account.spam !== null && !isRecord(account.spam))
    return `${account.email}: spam is not an object or null`;
  if (isRecord(account.spam) && !Array.isArray(account.spam.rules))
    return `${account.email}: spam.rules is not a list`;
  return undefined;
};

/**
 * Why `body` is not a placement report, or undefined when it is one.
 *
 * @example
 * ```ts
 * const problem = reportProblem(JSON.parse(saved));
 * if (problem) throw new Error(`not a placement report: ${problem}`);
 * ```
 */
export const reportProblem = (body: unknown): string | undefined => {
  if (!isRecord(body)) return 'the body is not a JSON object';
  if (typeof body.check_id !== 'string' || body.check_id === '') return 'check_id is missing';
  const summary = body.summary;
  if (!isRecord(summary) || !isCount(summary.total) || !isCount(summary.received))
    return 'summary.total and summary.received must be counts';
  if (!isRecord(summary.by_provider)) return 'summary.by_provider is not an object';
  for (const [provider, counts] of Object.entries(summary.by_provider)) {
    if (!isRecord(counts)) return `summary.by_provider.${provider} is not an object`;
    for (const field of ['total', 'received', 'inbox', 'spam', 'other'])
      if (!isCount(counts[field])) return `summary.by_provider.${provider}.${field} is not a count`;
  }
  if (!Array.isArray(body.accounts)) return 'accounts is not an array';
  for (const account of body.accounts) {
    const problem = accountProblem(account);
    if (problem) return problem;
  }
  return undefined;
};
