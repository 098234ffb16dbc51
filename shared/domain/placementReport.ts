// Owns the placement report's wire shape (GET /api/spam-check/{check_id}/report, an addition): why each copy landed
// where it did. The server builds it (see the report use case); the API client and the check CLI read it.
import type { ReportAudit } from './auditReport';
import type { Category } from './categories';
import type { CheckStatus } from './check';
import type { AuthVerdict, SpamVerdict } from './receivingVerdicts';
import type { WithSnakeKeys } from './wireKeys';

export type { AuthReasons, AuthResult, AuthVerdict, SpamVerdict } from './receivingVerdicts';

/** The audit as served: snake_case, and until the next minor its 1.0 camelCase fields too. */
export type WireAudit = WithSnakeKeys<ReportAudit>;

export interface ReportAccount {
  /** Untagged address of the test account. */
  email: string;
  /** The account's provider preset name (gmail, outlook, microsoft365, yahoo, aol, icloud, imap). */
  provider: string;
  category: Category;
  /** Null while pending. */
  folder: string | null;
  /** IMAP INTERNALDATE of the copy, ISO 8601. */
  delivered_at: string | null;
  /** When the scanner recorded the copy, ISO 8601. */
  detected_at: string | null;
  /** From the message's Date header to delivered_at; null unless both exist. */
  seconds_to_deliver: number | null;
  /** Null where no Authentication-Results header the account trusts is present. */
  auth: AuthVerdict | null;
  /** Null where the account's receiving filter wrote no verdict. */
  spam: SpamVerdict | null;
  /** The provider's own stamped verdict (Outlook's X-Microsoft-Antispam-Mailbox-Delivery), else null. */
  provider_verdict: string | null;
  /** True when the seed's own control messages went astray lately: its copy is shown but left out of every rate. */
  suspect?: boolean;
  /** The seed's health when the check started: `unknown` when no recent calibration told (counted as ok). */
  seed_health?: 'ok' | 'suspect' | 'unknown';
}

/**
 * A rate with its count and 95 % Wilson score interval; `of` counts received copies from seeds not suspect, and
 * rate, low and high are null when it is 0.
 */
export interface RateInterval {
  count: number;
  of: number;
  rate: number | null;
  low: number | null;
  high: number | null;
}

/** Where the latest control message (a known-good message from the operator's own sender) landed at a provider. */
export interface ControlPlacement {
  check_id: string;
  /** When the control check started, ISO 8601. */
  at: string;
  total: number;
  inbox: number;
  spam: number;
  missing: number;
  /** Elsewhere than the inbox or spam (a tab, trash, an unknown folder). */
  other: number;
  /** Anywhere but an inbox category, from a seed that could be read; `unreachable`: missing where logins failed. */
  astray: number;
  unreachable: number;
  /** Most seeds here lost the control: the provider (or the control sender) is flagged, not these seeds. */
  provider_astray: boolean;
}

/** Where the report's seed marks come from: kept with the check when it started, never read again later. */
export interface ReportSeedMarks {
  /** `current`, `stale` (the latest calibration was older than 3 intervals: health unknown) or `none`. */
  state: 'current' | 'stale' | 'none';
  /** The check's start, ISO 8601; null for a check that kept no marks. */
  taken_at: string | null;
  calibration: { check_id: string; at: string } | null;
}

export interface ProviderSummary {
  total: number;
  received: number;
  /** primary + updates */
  inbox: number;
  spam: number;
  /** promotions, social, forums, trash, unknown */
  other: number;
  /** Inbox and spam over received copies from seeds not suspect, each with its interval. */
  rates: { inbox: RateInterval; spam: RateInterval };
  /** The latest control's placement at this provider; null when there is none, absent where none is kept. */
  control?: ControlPlacement | null;
}

export interface PlacementReport {
  check_id: string;
  status: CheckStatus;
  started_at: string;
  /** Null while pending; complete: when the last result was recorded; timeout: started_at + 5 minutes. */
  completed_at: string | null;
  summary: {
    total: number;
    received: number;
    /** (primary + updates) over received (null when nothing was received) and over total. */
    inbox_rate: { of_received: number | null; of_total: number };
    /** The overall inbox rate over received copies from seeds not suspect, with its interval. */
    rates: { inbox: RateInterval };
    /** Every category of the contract, with zero counts too. */
    by_category: Record<Category, number>;
    by_provider: Record<string, ProviderSummary>;
  };
  accounts: ReportAccount[];
  /** Where the suspect marks and controls come from (an addition); absent where no seed history is kept. */
  seed_marks?: ReportSeedMarks;
  /** The sender audit of one copy (an addition); absent from a server or a saved report that predates it. */
  /**
   * The sender audit of one copy (an addition); absent from a server or a saved report that predates it.
   * snake_case since 1.1.0, with the 1.0 camelCase fields beside (deprecated).
   */
  audit?: WireAudit;
}
