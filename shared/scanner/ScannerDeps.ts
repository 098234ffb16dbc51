// Owns what a scanner is built from: its stores, its mailbox connector, its clock and the knobs of its sweeps.
import type { Clock } from '../domain/clock';
import type { Logger } from '../log';
import type { ScanEvents } from './scanHooks';
import type {
  AccountHealthStore,
  ActiveChecks,
  CredentialSource,
  CursorStore,
  MailboxConnector,
  ResultStore,
} from './scannerPorts';
import type { Shard } from './shards';

export interface ScannerDeps {
  checks: ActiveChecks & ResultStore;
  cursors: CursorStore;
  credentials: CredentialSource;
  /** Where failures in a row are counted; without it (tests of other parts) health is not tracked. */
  health?: AccountHealthStore;
  /** Failed sweeps in a row after which an account leaves new checks (default DEFAULT_UNHEALTHY_AFTER). */
  unhealthyAfter?: number;
  connector: MailboxConnector;
  clock: Clock;
  log: Logger;
  /** Told what the scanner does, for metrics and tests; every hook is optional. */
  events?: ScanEvents;
  /** The accounts this scanner sweeps when several loops share them (default: all of them). */
  shard?: Shard;
  /** How long a Gmail INBOX copy no tab search names yet stays pending (default DEFAULT_TAB_GRACE_MS). */
  tabGraceMs?: number;
  /** Hold IDLE watches and sweep watched accounts only on news (createScanner: on); off polls every tick. */
  watch?: boolean;
  /** How long a check's accounts are held after its start or last placed copy (createScanner: SCAN_PATIENCE_MS). */
  patienceMs?: number;
}
