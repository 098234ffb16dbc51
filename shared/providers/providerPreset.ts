// Owns the shape of a provider preset: what we know about a mailbox provider (server, login, folder names, quirks)
// and, for every piece, where the knowledge comes from and how sure it is.
//
// Confidence: `documented` means the provider's own text was read (Google's IMAP and XOAUTH2 pages, Microsoft's
// "Authenticate an IMAP, POP or SMTP connection using OAuth"); `third-party` means client guides, captured
// transcripts or reports that quote or observe the provider; `unconfirmed` means nothing better than a guess by
// analogy was found. Nothing here was checked against a live account.
import type { DetectedCategory } from '../domain/categories';
import type { EvidenceHeader } from '../domain/envelopeEvidence';
import type { MailboxServer } from '../domain/mailboxServer';
import type { ReceivingTrust } from '../domain/receivingTrust';

export const PROVIDERS = ['gmail', 'outlook', 'microsoft365', 'yahoo', 'aol', 'icloud', 'imap'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** `app-password`: a provider-issued app password; `password`: whatever the (generic) server accepts. */
export type AuthMethod = 'app-password' | 'password' | 'oauth2';
export type Confidence = 'documented' | 'third-party' | 'unconfirmed';
export type PlusAddressing = 'supported' | 'unsupported' | 'unknown';
/**
 * `advertised`: CAPABILITY has SPECIAL-USE and LIST carries `\Junk`, `\Trash`, …; `attributes-only`: LIST carries
 * them but CAPABILITY does not say so, so imapflow ignores them and guesses from names; `names-only`: no attributes.
 */
export type SpecialUseSupport = 'advertised' | 'attributes-only' | 'names-only' | 'unknown';
/** `email`: the full address; `icloud-local-part`: the part before @ for @icloud.com, @me.com and @mac.com. */
export type UserNameRule = 'email' | 'icloud-local-part';

export interface Source {
  confidence: Confidence;
  /** One line: what the source says, and any caveat. */
  note: string;
}

export interface Quirk<T> extends Source {
  value: T;
}

export interface ProviderQuirks {
  plusAddressing: Quirk<PlusAddressing>;
  specialUse: Quirk<SpecialUseSupport>;
  /** A header in which the provider stamps its own verdict on where it delivered the copy. */
  deliveryVerdictHeader: Quirk<string | undefined>;
  /** X-GM-EXT-1: INBOX tabs come from X-GM-RAW searches. */
  gmailTabs: Quirk<boolean>;
  /**
   * The headers, in the order believed, in which the provider writes a delivered copy's envelope recipient (the
   * tagged address it was sent to). The scanner reads only these; a copy that carries none of them is attributed
   * from its To and Cc, so a BCC copy there cannot be attributed: send with the tagged addresses in To.
   */
  envelopeEvidence: Quirk<readonly EvidenceHeader[]>;
  /**
   * Which Authentication-Results headers and which spam-filter header the provider writes itself (the placement
   * report reads only those); an account entry's `authservIds` and `spamFilters` replace it.
   */
  receiving: Quirk<ReceivingTrust>;
}

export interface OAuth2Settings {
  authorizeEndpoint: string;
  tokenEndpoint: string;
  /** Space-separated, as the authorize and token requests take it. */
  scope: string;
}

export interface ProviderPreset {
  provider: Provider;
  label: string;
  /** Where to log in; none for the generic `imap`, whose host must always be given. */
  imap: MailboxServer | undefined;
  authMethods: readonly AuthMethod[];
  userName: UserNameRule;
  /** Folder name -> category, merged under the account's own `folders` (which win). */
  folderHints: Readonly<Record<string, DetectedCategory>>;
  oauth2: OAuth2Settings | undefined;
  quirks: ProviderQuirks;
  sources: Readonly<Record<'imap' | 'auth' | 'userName' | 'folderHints' | 'oauth2', Source>>;
}
