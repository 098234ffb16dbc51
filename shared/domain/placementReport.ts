// Owns the placement report's wire shape (GET /api/spam-check/{check_id}/report, an addition): why each copy landed
// where it did. The server builds it (see the report use case); the API client and the check CLI read it.
import type { Category } from './categories';
import type { CheckStatus } from './check';
import type { AuthVerdict, SpamVerdict } from './placement';

export type { AuthReasons, AuthResult, AuthVerdict, SpamVerdict } from './placement';

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
}

export interface ProviderSummary {
  total: number;
  received: number;
  /** primary + updates */
  inbox: number;
  spam: number;
  /** promotions, social, forums, trash, unknown */
  other: number;
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
    /** Every category of the contract, with zero counts too. */
    by_category: Record<Category, number>;
    by_provider: Record<string, ProviderSummary>;
  };
  accounts: ReportAccount[];
}
