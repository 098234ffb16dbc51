// Owns the client's view of the API's resources (docs/contract.md 1.0.0): their types, checking a response body against
// them, and the inbox rate of a check.
import { isCategory, isInbox } from '../domain/categories';
import type { CheckStatus, CheckView } from '../domain/check';

export type { Category } from '../domain/categories';

/** The service's own view of a check is what a client receives: one type for one meaning. */
export type { AccountResult, CheckStatus, CheckView } from '../domain/check';

export const CHECK_STATUSES = ['pending', 'complete', 'timeout'] as const satisfies readonly CheckStatus[];

/** The answer of `POST /api/spam-check/start`: send ONE message to every address, unchanged. */
export interface StartedCheck {
  check_id: string;
  accounts: string[];
}

/** Share of the check's accounts whose message landed in the inbox (`primary` or `updates`), from 0 to 1. */
export const inboxRate = (check: Pick<CheckView, 'results' | 'total'>): number => {
  if (check.total <= 0) return 0;
  return check.results.filter((result) => isInbox(result.category)).length / check.total;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

/** Why `body` is not a start response, or undefined when it is one. */
export const startedCheckProblem = (body: unknown): string | undefined => {
  if (!isRecord(body)) return 'the body is not a JSON object';
  if (typeof body.check_id !== 'string' || body.check_id === '') return 'check_id is missing';
  if (!Array.isArray(body.accounts) || !body.accounts.every((account) => typeof account === 'string'))
    return 'accounts is not an array of strings';
  return undefined;
};

/** Why `body` is not a check, or undefined when it is one. */
export const checkProblem = (body: unknown): string | undefined => {
  if (!isRecord(body)) return 'the body is not a JSON object';
  if (typeof body.check_id !== 'string' || body.check_id === '') return 'check_id is missing';
  if (!(CHECK_STATUSES as readonly unknown[]).includes(body.status))
    return `status ${JSON.stringify(body.status)} is not one of ${CHECK_STATUSES.join(', ')}`;
  if (!isCount(body.received) || !isCount(body.total)) return 'received and total must be counts';
  if (!Array.isArray(body.results)) return 'results is not an array';
  for (const result of body.results as unknown[]) {
    if (!isRecord(result) || typeof result.email !== 'string') return 'a result has no email';
    if (typeof result.category !== 'string' || !isCategory(result.category))
      return `category ${JSON.stringify(result.category)} is not one of the spec's categories`;
  }
  return undefined;
};
