// Owns the client's view of the placement report (GET /api/spam-check/{check_id}/report, an addition to the spec):
// its type, from the service's domain, and checking a response body against it before anyone renders it.
import { isCategory } from '../domain/categories';

export type { ReportAudit } from '../domain/auditReport';
export type {
  AuthReasons,
  AuthResult,
  AuthVerdict,
  ControlPlacement,
  PlacementReport,
  ProviderSummary,
  ReportAccount,
  SpamVerdict,
} from '../domain/placementReport';

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

/** Why `body` is not a placement report, or undefined when it is one. */
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
