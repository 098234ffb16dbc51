// Owns the client's view of the API's resources (docs/contract.md 1.0.0): their types, checking a response body against
// them, and the inbox rate of a check.

import type * as categories from '../domain/categories';
import { isCategory, isInbox } from '../domain/categories';
import type * as check from '../domain/check';

/**
 * Where one copy landed: `primary`, `updates`, `promotions`, `social`, `forums`, `spam`, `trash`, or `pending`.
 *
 * @example
 * ```ts
 * const landed: Category = check.results[0]?.category ?? 'pending';
 * ```
 */
export type Category = categories.Category;

/**
 * A check as GET returns it (the service's own view is what a client receives: one type for one meaning).
 *
 * @example
 * ```ts
 * const view: CheckView = await client.getCheck(checkId);
 * console.log(view.status, view.received, 'of', view.total);
 * ```
 */
export type CheckView = check.CheckView;

/**
 * One test account's result in a check: its untagged address and where the copy landed.
 *
 * @example
 * ```ts
 * for (const { email, category } of view.results as AccountResult[]) console.log(email, category);
 * ```
 */
export type AccountResult = check.AccountResult;

/**
 * A check's status: `pending` until every copy is in or 5 minutes pass, then `complete` or `timeout`.
 *
 * @example
 * ```ts
 * const settled = (status: CheckStatus) => status !== 'pending';
 * ```
 */
export type CheckStatus = check.CheckStatus;

/**
 * Every status a check can have, in the contract's order.
 *
 * @example
 * ```ts
 * if (!CHECK_STATUSES.includes(input as CheckStatus)) throw new Error(`unknown status ${input}`);
 * ```
 */
export const CHECK_STATUSES = ['pending', 'complete', 'timeout'] as const satisfies readonly CheckStatus[];

/**
 * The answer of `POST /api/spam-check/start`: send ONE message to every address, unchanged.
 *
 * @example
 * ```ts
 * const { check_id, accounts }: StartedCheck = await client.startCheck();
 * await transport.sendMail({ from, bcc: accounts, subject, html });
 * ```
 */
export interface StartedCheck {
  check_id: string;
  accounts: string[];
}

/**
 * Share of the check's accounts whose message landed in the inbox (`primary` or `updates`), from 0 to 1.
 *
 * @example
 * ```ts
 * console.log(`${Math.round(inboxRate(await client.getCheck(checkId)) * 100)} % in the inbox`);
 * ```
 */
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
