// Owns what the receiving side said about one copy: its authentication and spam verdicts, and the details kept with
// a result. Below the check and the report, so both read it one way.

/** An RFC 8601 result word as the receiving side wrote it, lower-cased (pass, fail, none, softfail, …). */
export type AuthResult = string;

/** Authentication as the receiving provider reported it, from its own Authentication-Results header only. */
export interface AuthVerdict {
  spf: AuthResult | null;
  dkim: AuthResult | null;
  dmarc: AuthResult | null;
  arc: AuthResult | null;
  /** The receiving side's authserv-id; null where it writes none (Microsoft: its own header is the topmost one). */
  authserv_id: string | null;
  /**
   * The receiving side's own reason for each result, from the same header: RFC 8601's `reason=`, else the comment
   * right after the result word (Gmail's `dkim=neutral (body hash did not verify)`); control characters removed, at
   * most 120 bytes of UTF-8; null where it gave none.
   */
  reasons: AuthReasons;
}

export interface AuthReasons {
  spf: string | null;
  dkim: string | null;
  dmarc: string | null;
  arc: string | null;
}

/** The receiving spam filter's own verdict (SpamAssassin's X-Spam-Status, Microsoft's SCL/SFV/BCL, …). */
export interface SpamVerdict {
  /** Which filter wrote it: `spamassassin`, `microsoft`, … */
  filter: string;
  score: number | null;
  threshold: number | null;
  verdict: 'spam' | 'ham' | null;
  rules: string[];
}

/**
 * Kept with a result: never shown by the spec's get (its AccountResult has two fields), shown by the placement report.
 * Every field is bounded (see shared/scanner/evidence.ts), so a check's item stays small.
 */
export interface PlacementDetails {
  folder?: string | undefined;
  /** The provider's own verdict where it stamps one (Outlook's X-Microsoft-Antispam-Mailbox-Delivery). */
  providerVerdict?: string | undefined;
  /** IMAP INTERNALDATE, ms since the epoch. */
  deliveredAt?: number | undefined;
  /** The copy's Date header, ms since the epoch. */
  sentAt?: number | undefined;
  auth?: AuthVerdict | null | undefined;
  spam?: SpamVerdict | null | undefined;
}

/** A recorded result's details as stored, with when it was recorded. */
export interface RecordedDetails extends PlacementDetails {
  recordedAt?: number | undefined;
}
