// Owns what the domain needs from storage, stated as small interfaces; adapters in shared/adapters implement them.

import type { ControlRun, SeedCalibration } from '../calibration/domain';
import type { RegisteredAccount, TestAccount } from './account';
import type { ApiKey } from './apiKey';
import type { Check } from './check';
import type { CheckProgress, InFlightEntry, InFlightHolder } from './keyLimits';

export type { PlacementDetails, RecordedDetails } from './receivingVerdicts';

export interface CheckStore {
  /** Creates the check once; throws ConflictError if its id is already taken. */
  create(check: Check): Promise<void>;
  get(checkId: string): Promise<Check | undefined>;
}

export interface ApiKeyStore {
  findByHash(keyHash: string): Promise<ApiKey | undefined>;
  /** Stores a new key once; throws ConflictError if it exists. */
  create(key: ApiKey): Promise<void>;
  list(): Promise<ApiKey[]>;
  /** Returns false when no key has that id. */
  revoke(keyId: string): Promise<boolean>;
}

export interface AccountRegistry {
  /** Active and healthy accounts of a scope: the ones a new check may use. */
  activeInScope(scope: string): Promise<TestAccount[]>;
  list(): Promise<RegisteredAccount[]>;
  put(account: TestAccount): Promise<void>;
  remove(email: string): Promise<void>;
}

/** What recording one result did (ResultStore.recordResult, shared/scanner/scannerPorts.ts). */
export type RecordOutcome = 'recorded' | 'already-recorded' | 'closed';

/** Wakes the scanner so a new check does not wait for the next scheduled run. Best effort: it may be a no-op. */
export interface ScanTrigger {
  kick(): Promise<void>;
}

/** The per-key counters behind the limits of keyLimits.ts; shared by every process through conditional writes. */
export interface KeyUsageStore {
  /** Counts one start in the minute starting at `windowStart`; false, counting nothing, once `limit` are counted. */
  countStart(keyId: string, windowStart: number, limit: number): Promise<boolean>;
  /** Adds a check to the holder's in-flight set unless the set already holds `max`; false when full. */
  addInFlight(holder: InFlightHolder, entry: InFlightEntry, max: number): Promise<boolean>;
  /** The holder's in-flight set, and when its checks were last read (see removeInFlight). */
  inFlight(holder: InFlightHolder): Promise<{ entries: InFlightEntry[]; checkedAt: number | undefined }>;
  /** Drops these checks from the set; with `checkedAt`, also records that the set's checks were read then. */
  removeInFlight(holder: InFlightHolder, checkIds: readonly string[], checkedAt?: number): Promise<void>;
  /** Progress of those of these checks that exist. */
  progressOf(checkIds: readonly string[]): Promise<Map<string, CheckProgress>>;
}

/** The seeds' calibration history and each scope's control runs (seedHealth.ts); kept 30 days. */
export interface SeedHistoryStore {
  record(entries: readonly SeedCalibration[]): Promise<void>;
  /** Newest first, at most `limit`. */
  historyOf(email: string, limit?: number): Promise<SeedCalibration[]>;
  recordRun(run: ControlRun): Promise<void>;
  /** The scope's latest finished calibration, if any is kept. */
  latestRun(scope: string): Promise<ControlRun | undefined>;
}
