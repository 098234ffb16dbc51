// Owns a seed's track record: where each calibration's control message landed at it, when a seed is suspect, and a
// calibration's outcome per provider. Pure: the calibration use case and the stores hand it plain histories.
import type { Category } from './categories';
import { placementClassOf } from './categories';

/** How long a seed's calibration history is kept (the items' TTL); the suspect rule reads the latest few only. */
export const SEED_HISTORY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** Where one control copy ended up at one seed: `missing` when the check closed without it. */
export type SeedPlacement = 'inbox' | 'spam' | 'other' | 'missing';

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
}

/** A suspect seed: its control went to spam or went missing in this many of its latest `SUSPECT_WINDOW` calibrations. */
const SUSPECT_AFTER = 2;
export const SUSPECT_WINDOW = 3;

export const placementOfCategory = (category: Category): SeedPlacement =>
  category === 'pending' ? 'missing' : placementClassOf(category);

const astray = (placement: SeedPlacement) => placement === 'spam' || placement === 'missing';

/** The latest `SUSPECT_WINDOW` calibrations of a history, newest first, whatever order it came in. */
export const latestCalibrations = (history: readonly SeedCalibration[]): SeedCalibration[] =>
  [...history].sort((a, b) => b.at - a.at || b.checkId.localeCompare(a.checkId)).slice(0, SUSPECT_WINDOW);

/** True when the control went to spam or missing in SUSPECT_AFTER of the seed's latest SUSPECT_WINDOW calibrations. */
export const isSuspect = (history: readonly SeedCalibration[]): boolean =>
  latestCalibrations(history).filter((entry) => astray(entry.placement)).length >= SUSPECT_AFTER;

/** The latest moment a value was seen across a history, or undefined. */
const latest = (values: readonly (number | undefined)[]): number | undefined => {
  const seen = values.filter((value): value is number => value !== undefined);
  return seen.length > 0 ? Math.max(...seen) : undefined;
};

/** A seed's record as the admin CLI lists it. */
export interface SeedRecord {
  email: string;
  suspect: boolean;
  /** The latest control copy's delivery time, over the kept history. */
  lastDeliveryAt: number | undefined;
  /** The latest time the scanner found a control copy there: a login that worked. */
  lastLoginAt: number | undefined;
  /** Newest first. */
  history: SeedCalibration[];
}

export const seedRecordOf = (email: string, history: readonly SeedCalibration[]): SeedRecord => ({
  email,
  suspect: isSuspect(history),
  lastDeliveryAt: latest(history.map((entry) => entry.deliveredAt)),
  lastLoginAt: latest(history.map((entry) => entry.detectedAt)),
  history: [...history].sort((a, b) => b.at - a.at),
});

/** One provider's share of one calibration. */
export interface ControlCounts {
  total: number;
  inbox: number;
  spam: number;
  other: number;
  missing: number;
}

/** A finished calibration of one scope: where the control landed per provider, and its suspect seeds after it. */
export interface ControlRun {
  scope: string;
  checkId: string;
  at: number;
  byProvider: Record<string, ControlCounts>;
  /** Seeds suspect once this calibration was recorded. */
  suspect: string[];
}

export const controlCountsOf = (entries: readonly SeedCalibration[]): Record<string, ControlCounts> => {
  const byProvider: Record<string, ControlCounts> = {};
  for (const entry of entries) {
    byProvider[entry.provider] ??= { total: 0, inbox: 0, spam: 0, other: 0, missing: 0 };
    const counts = byProvider[entry.provider] as ControlCounts;
    counts.total++;
    counts[entry.placement]++;
  }
  return byProvider;
};
