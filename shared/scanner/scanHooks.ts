// Owns what the scanner tells the outside world: the event hooks and the shapes of a placement, a sweep and a tick.

import type { DetectedCategory } from '../domain/categories';
import type { AuthVerdict } from '../domain/placementReport';
import type { RecordOutcome } from '../domain/ports';
import type { MsDelivery } from '../providers/msDelivery';
import type { ParseCost } from './attributing';
import type { SettledCheck } from './scannerPorts';

export interface ScanEvents {
  /** Every tagged copy found, recorded or not. */
  placed?(placement: Placement): void;
  /** Every account sweep, successful or not. */
  swept?(sweep: AccountSweep): void;
  /** Every tick, with the number of checks still waiting. */
  ticked?(tick: { activeChecks: number; pendingAccounts: number }): void;
  /** Every probe of the accounts taken out of new checks, with how many there are. */
  probed?(probe: { unhealthyAccounts: number }): void;
  /** An account just left new checks (`unhealthy`) or came back (`recovered`). */
  healthChanged?(change: { email: string; state: 'unhealthy' | 'recovered'; error?: string }): void;
  /** A watch (IMAP IDLE) on one folder went live, failed to open, or found the server has no IDLE. */
  watched?(watch: { email: string; path: string; state: 'watching' | 'failed' | 'pushless' }): void;
  /** Every check this scanner settled as complete or timed out (each check is settled once, by one scanner). */
  settled?(check: SettledCheck): void;
  /** Every message stepped over unread: not handed over within a fetch's deadline even alone, or too large. */
  skipped?(skip: { email: string; path: string; uid: number; reason: SkipReason }): void;
  /** Every message a sweep read, with what reading its header block cost (the scanner's time per hostile copy). */
  parsed?(parse: MessageParse): void;
}

/** Why a message was stepped over unread (Recorder.skipped). */
export type SkipReason = 'deadline' | 'too-large';

/** What reading one message's header block (tags, evidence, verdicts) cost, in milliseconds (see ParseCost). */
export interface MessageParse extends ParseCost {
  email: string;
  path: string;
  uid: number;
}

export interface Placement {
  checkId: string;
  email: string;
  provider: string;
  folder: string;
  category: DetectedCategory;
  outcome: RecordOutcome;
  /** When the copy reached the mailbox (INTERNALDATE), ms since the epoch. */
  deliveredAt: number;
  recordedAt: number;
  /** Outlook's X-Microsoft-Antispam-Mailbox-Delivery verdict, where the copy carries one. */
  providerVerdict?: MsDelivery;
  /** The receiving side's own authentication results, where the account trusts a header the copy carries. */
  auth?: AuthVerdict | null;
  /** The copy's UID in `folder` and its header block as read: what the sender audit fetches and falls back on. */
  uid: number;
  headers: Buffer;
}

export interface TickReport {
  activeChecks: number;
  pendingAccounts: number;
  /** Of them, those a check within its patience waits for: what keeps a loop running (planning.waitingAccounts). */
  heldAccounts: number;
  /** Sweeps started by this tick; accounts still busy from an earlier tick or backing off are not restarted. */
  started: Promise<AccountSweep>[];
}

export interface AccountSweep {
  email: string;
  ok: boolean;
  foldersRead: number;
  messagesFetched: number;
  placements: number;
  /** Wall time of the sweep, in milliseconds to two decimals. */
  durationMs: number;
  /** Sweeps of this account that failed in a row, this one included; 0 after a success. */
  consecutiveFailures: number;
}

/** A sweep's report before anything is read: not ok until it succeeds. */
export const emptySweep = (email: string): AccountSweep => ({
  email,
  ok: false,
  foldersRead: 0,
  messagesFetched: 0,
  placements: 0,
  durationMs: 0,
  consecutiveFailures: 0,
});
