// Owns what the API's handlers are given: the stores, the clock, the logger and the optional per-process parts.

import type { AuditStore } from '../audit';
import type { AuthCache } from '../domain/authCache';
import type { Clock } from '../domain/clock';
import type {
  AccountRegistry,
  ApiKeyStore,
  CheckStore,
  ScanTrigger,
  SeedHistoryStore,
} from '../domain/ports';
import type { CallbackPolicy } from '../domain/publicAddress';
import type { ReadLimiter } from '../domain/readLimits';
import type { ReportArchive } from '../domain/reportArchive';
import type { Logger } from '../log';
import type { KeyLimitDeps } from '../usecases/enforceKeyLimits';
import type { WebhookStore } from '../webhooks';

export interface ApiDeps {
  keys: ApiKeyStore;
  checks: CheckStore;
  accounts: AccountRegistry;
  clock: Clock;
  log: Logger;
  /** Created once per process (container), so a warm Lambda rarely reads a key from the table. */
  authCache?: AuthCache | undefined;
  /** Per-key (and per-scope in-flight) limits on start; absent means none. */
  keyLimits?: KeyLimitDeps | undefined;
  /** Per-key limit on get and the report, per process like authCache; absent means none. */
  readLimiter?: ReadLimiter | undefined;
  /**
   * Set by `npm start` to wake its in-process scanner. On AWS it stays unset: the table's stream wakes the scanner
   * on every new check, so start needs no permission beyond the table.
   */
  trigger?: ScanTrigger | undefined;
  onStarted?: (() => void) | undefined;
  /** The seeds' calibration record, for the report's control beside each provider; absent: the report has none. */
  seeds?: SeedHistoryStore | undefined;
  /** Where start accepts callback URLs; absent: public https only, as on AWS. */
  callbackPolicy?: CallbackPolicy | undefined;
  /** The webhook deliveries, for the report's attempts (an addition); absent: the report shows none. */
  webhooks?: Pick<WebhookStore, 'get'> | undefined;
  /** Checks' sender audits, for the report's audit (an addition); absent: the report says the audit is off. */
  audits?: Pick<AuditStore, 'get'> | undefined;
  /** Ended checks' reports (an addition), for history and compare; absent: history is empty, compare reads live only. */
  archive?: Pick<ReportArchive, 'get' | 'list'> | undefined;
}
