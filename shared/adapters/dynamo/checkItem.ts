// Owns a check's item: the check and its recorded results to and from the table, its pending set and what a result
// write stores.
import { type Category, isCategory } from '../../domain/categories';
import type { Check, CheckCallback } from '../../domain/check';
import { RETENTION_MS } from '../../domain/limits';
import type { PlacementDetails, RecordedDetails } from '../../domain/ports';
import { num, str } from './itemFields';
import { checkKey, type Item, type ItemType, openCheckKey } from './keys';
import { seedMarksFromItem } from './seedHistoryItem';

export interface StoredResult extends RecordedDetails {
  category: Category;
}

/** A recorded result as its item map: the category, when, and the details that are set. */
export const storedResultOf = (category: Category, now: number, details: PlacementDetails): StoredResult => ({
  ...(Object.fromEntries(
    Object.entries(details).filter(([, value]) => value !== undefined),
  ) as PlacementDetails),
  category,
  recordedAt: now,
});

const detailsOf = (stored: Partial<StoredResult> | undefined): RecordedDetails | undefined => {
  if (!stored || stored.category === undefined || stored.category === 'pending') return undefined;
  const { category: _category, ...details } = stored;
  return details;
};

export const checkToItem = (check: Check): Item => {
  const pending = check.results
    .filter((result) => result.category === 'pending')
    .map((result) => result.email);
  return {
    ...checkKey(check.checkId),
    ...openCheckKey(check.createdAt, check.checkId, check.callback !== undefined),
    type: 'check' satisfies ItemType,
    checkId: check.checkId,
    scope: check.scope,
    createdAt: check.createdAt,
    purgeAt: Math.ceil((check.createdAt + RETENTION_MS) / 1000),
    emails: check.results.map((result) => result.email),
    results: Object.fromEntries(
      check.results.map((result) => [result.email, { category: result.category } satisfies StoredResult]),
    ),
    received: check.received,
    total: check.results.length,
    // DynamoDB stores no empty set: a check with nothing pending has no `pending` at all.
    ...(pending.length > 0 ? { pending: new Set(pending) } : {}),
    ...(check.providers ? { providers: check.providers } : {}),
    ...(check.callback ? { callback: check.callback } : {}),
    ...(check.seedMarks ? { seedMarks: check.seedMarks } : {}),
    ...(check.monitor ? { monitor: check.monitor } : {}),
  };
};

/**
 * The accounts of a stored check that have not received the message yet, from its `pending` set (which each result
 * write shrinks in the same conditional update), sorted: a set keeps no order. Absent: nothing pending.
 */
export const pendingEmailsOf = (item: Item): string[] =>
  item.pending instanceof Set ? [...(item.pending as Set<string>)].sort() : [];

export const checkFromItem = (item: Item): Check => {
  const emails = item.emails;
  const results = (item.results ?? {}) as Record<string, Partial<StoredResult> | undefined>;
  if (!Array.isArray(emails)) throw new Error(`stored check ${String(item.pk)} has no emails`);
  const details = Object.fromEntries(
    emails.flatMap((email: string) => {
      const recorded = detailsOf(results[email]);
      return recorded ? [[email, recorded] as const] : [];
    }),
  );
  return {
    checkId: str(item, 'checkId'),
    scope: str(item, 'scope'),
    createdAt: num(item, 'createdAt'),
    received: num(item, 'received'),
    results: emails.map((email: string) => {
      const category = results[email]?.category;
      return { email, category: category && isCategory(category) ? category : 'pending' };
    }),
    ...(Object.keys(details).length > 0 ? { details } : {}),
    ...(item.providers && typeof item.providers === 'object'
      ? { providers: item.providers as Record<string, string> }
      : {}),
    ...callbackOf(item.callback),
    ...(item.seedMarks && typeof item.seedMarks === 'object'
      ? { seedMarks: seedMarksFromItem(item.seedMarks) }
      : {}),
    ...(typeof item.monitor === 'string' ? { monitor: item.monitor } : {}),
  };
};

/**
 * The stored callback; checks started before the callback URL kept one name hold it as `url` (a check lives minutes,
 * so this reading goes after one release).
 */
const callbackOf = (stored: unknown): { callback?: CheckCallback } => {
  if (!stored || typeof stored !== 'object') return {};
  const { callbackUrl, url, keyId, reportUrl } = stored as Record<string, unknown>;
  const target = callbackUrl ?? url;
  if (typeof target !== 'string' || typeof keyId !== 'string' || typeof reportUrl !== 'string') return {};
  return { callback: { callbackUrl: target, keyId, reportUrl } };
};
