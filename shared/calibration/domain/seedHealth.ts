// Owns a seed's track record: what each calibration's control copy says about it, when a seed is suspect (only
// relative to its provider), when its record is too old to tell, and how long its history is kept. Pure.
import type { Category } from '../../domain/categories';
import { isInbox } from '../../domain/categories';

/** How long a calibration is kept at least (the TTL); longer where its interval is long (retentionMs). */
const SEED_HISTORY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Where one control copy ended up at one seed: `missing` when the check closed without it. */
export type SeedPlacement = 'inbox' | 'spam' | 'other' | 'missing';

/**
 * What one control copy says: `inbox` in an inbox category (primary, updates); `unreachable` when it is missing
 * and the scanner's logins to the seed were failing (the seed could not be read, so nothing is known); `astray`
 * anywhere else: spam, trash, a tab, an unknown folder, or missing from a seed that could be read.
 */
export type ControlOutcome = 'inbox' | 'astray' | 'unreachable';

/** One seed in one calibration. */
export interface SeedCalibration {
  email: string;
  scope: string;
  provider: string;
  /** The control check's id: which calibration this was. */
  checkId: string;
  /** When the control check started, ms since the epoch. */
  at: number;
  placement: SeedPlacement;
  /** The category the scanner recorded, `pending` when missing. */
  category: Category;
  /** IMAP INTERNALDATE of the control copy; absent when missing. */
  deliveredAt?: number | undefined;
  /** When the scanner found the copy: it had logged in and read the mailbox then. */
  detectedAt?: number | undefined;
  /** Failed sweeps in a row on the account's health record when the calibration ended (0: its logins work). */
  loginFailures: number;
  /** Most of the provider's seeds lost the control in this calibration: the provider or the sender, not the seed. */
  providerAstray?: boolean | undefined;
  /** The calibration interval this run was judged under (see runInterval.ts); absent on older entries. */
  everyMs?: number | undefined;
}

/** A suspect seed: its control went astray, while most of its provider's seeds got it, in 2 of its latest 3. */
const SUSPECT_AFTER = 2;
export const SUSPECT_WINDOW = 3;
/** A seed whose latest calibration is older than this many intervals has no known health. */
const STALE_AFTER_INTERVALS = 3;
/**
 * The interval assumed where none is known yet (a scope's first calibration, an entry kept before intervals were):
 * 30 days, so a first calibration is kept 120 days and the next one, however late, still meets it.
 */
export const DEFAULT_EVERY_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * A calibration (a seed's entry, a scope's run) is kept 30 days, or one interval past the time it turns stale if
 * that is longer: calibrations any distance apart still meet in the suspect rule.
 */
export const retentionMs = (everyMs: number | undefined): number =>
  Math.max(SEED_HISTORY_RETENTION_MS, (STALE_AFTER_INTERVALS + 1) * (everyMs ?? DEFAULT_EVERY_MS));

export const outcomeOf = (entry: Pick<SeedCalibration, 'category' | 'loginFailures'>): ControlOutcome => {
  if (isInbox(entry.category)) return 'inbox';
  return entry.category === 'pending' && entry.loginFailures > 0 ? 'unreachable' : 'astray';
};

/** The control went astray at this seed while most of its provider's seeds got it: evidence against the seed. */
const againstSeed = (entry: SeedCalibration): boolean =>
  outcomeOf(entry) === 'astray' && entry.providerAstray !== true;

/** The latest `SUSPECT_WINDOW` calibrations of a history, newest first, whatever order it came in. */
export const latestCalibrations = (history: readonly SeedCalibration[]): SeedCalibration[] =>
  [...history].sort((a, b) => b.at - a.at || b.checkId.localeCompare(a.checkId)).slice(0, SUSPECT_WINDOW);

/** True when the control went astray against the seed (see againstSeed) in 2 of its latest 3 calibrations. */
export const isSuspect = (history: readonly SeedCalibration[]): boolean =>
  latestCalibrations(history).filter(againstSeed).length >= SUSPECT_AFTER;

/** `unknown`: no calibration, or the latest is older than STALE_AFTER_INTERVALS of its interval. */
export type SeedState = 'ok' | 'suspect' | 'unknown';

export const isStale = (at: number, everyMs: number | undefined, now: number): boolean =>
  now - at > STALE_AFTER_INTERVALS * (everyMs ?? DEFAULT_EVERY_MS);

export const seedStateOf = (history: readonly SeedCalibration[], now: number): SeedState => {
  const [latest] = latestCalibrations(history);
  if (!latest || isStale(latest.at, latest.everyMs, now)) return 'unknown';
  return isSuspect(history) ? 'suspect' : 'ok';
};

/** The latest moment a value was seen across a history, or undefined. */
const latest = (values: readonly (number | undefined)[]): number | undefined => {
  const seen = values.filter((value): value is number => value !== undefined);
  return seen.length > 0 ? Math.max(...seen) : undefined;
};

/** A seed's record as the admin CLI lists it. */
export interface SeedRecord {
  email: string;
  state: SeedState;
  suspect: boolean;
  /** The latest control copy's delivery time, over the kept history. */
  lastDeliveryAt: number | undefined;
  /** The latest time the scanner found a control copy there: a login that worked. */
  lastLoginAt: number | undefined;
  /** Newest first. */
  history: SeedCalibration[];
}

export const seedRecordOf = (email: string, history: readonly SeedCalibration[], now: number): SeedRecord => {
  const state = seedStateOf(history, now);
  return {
    email,
    state,
    suspect: state === 'suspect',
    lastDeliveryAt: latest(history.map((entry) => entry.deliveredAt)),
    lastLoginAt: latest(history.map((entry) => entry.detectedAt)),
    history: [...history].sort((a, b) => b.at - a.at),
  };
};
