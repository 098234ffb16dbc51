// Owns the check: what it holds, how its status follows from it and a clock, and how it is shown to clients.

import type { SeedMarks } from '../calibration/domain';
import type { Category } from './categories';
import { ACTIVE_MS, RETENTION_MS } from './limits';
import type { RecordedDetails } from './receivingVerdicts';

export type CheckStatus = 'pending' | 'complete' | 'timeout';

export interface AccountResult {
  email: string;
  category: Category;
}

export interface Check {
  checkId: string;
  scope: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** One entry per test account, in the order the addresses were handed out. */
  results: AccountResult[];
  received: number;
  /** Each account's provider preset name, as registered when the check started (for the placement report). */
  providers?: Readonly<Record<string, string>> | undefined;
  /** What was recorded with each received account's result (for the placement report), by email. */
  details?: Readonly<Record<string, RecordedDetails>> | undefined;
  /** Where to send a webhook when the check ends (an addition), when the caller asked for one. */
  callback?: CheckCallback | undefined;
  /** The seeds' marks as they stood when the check started (an addition): its report keeps them. */
  seedMarks?: SeedMarks | undefined;
  /** The monitor whose run this check is (an addition): its history lists it under the monitor's name. */
  monitor?: string | undefined;
}

/** Where a check's webhook goes, and what it names: kept with the check from its start. */
export interface CheckCallback {
  /** The request's `callback_url`, under one name from the request to the delivery. */
  callbackUrl: string;
  /** The API key that started the check: its webhook secrets sign the delivery. */
  keyId: string;
  /** The check's placement report, as the caller reached the API. */
  reportUrl: string;
}

export const newCheck = (
  checkId: string,
  scope: string,
  emails: readonly string[],
  now: number,
  providers?: Readonly<Record<string, string>>,
  callback?: CheckCallback,
): Check => ({
  checkId,
  scope,
  createdAt: now,
  results: emails.map((email) => ({ email, category: 'pending' })),
  received: 0,
  ...(providers ? { providers } : {}),
  ...(callback ? { callback } : {}),
});

const totalOf = (check: Check): number => check.results.length;

/** Results may still be written while this holds: the spec's 5 active minutes. */
export const isActive = (check: Pick<Check, 'createdAt'>, now: number): boolean =>
  now - check.createdAt <= ACTIVE_MS;

/** A check past retention does not exist, even if the store's TTL has not removed it yet. */
export const isExpired = (check: Pick<Check, 'createdAt'>, now: number): boolean =>
  now - check.createdAt >= RETENTION_MS;

/** What a check's status follows from: when it started, how many accounts it has and how many it has heard from. */
export interface CheckCounts {
  createdAt: number;
  received: number;
  total: number;
}

/** The one complete/timeout rule: complete once every account is in, timeout once the active minutes are over. */
export const statusFromCounts = (counts: CheckCounts, now: number): CheckStatus => {
  if (counts.received >= counts.total) return 'complete';
  return isActive(counts, now) ? 'pending' : 'timeout';
};

export const statusOf = (check: Check, now: number): CheckStatus =>
  statusFromCounts({ createdAt: check.createdAt, received: check.received, total: totalOf(check) }, now);

/** The latest moment at which a result may still be recorded; used as the store's write condition. */
export const activeCutoff = (now: number): number => now - ACTIVE_MS;

export interface CheckView {
  check_id: string;
  status: CheckStatus;
  received: number;
  total: number;
  results: AccountResult[];
}

export const viewOf = (check: Check, now: number): CheckView => ({
  check_id: check.checkId,
  status: statusOf(check, now),
  received: check.received,
  total: totalOf(check),
  results: check.results.map(({ email, category }) => ({ email, category })),
});
