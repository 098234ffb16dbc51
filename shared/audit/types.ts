// Owns the sender audit's vocabulary: what one check's audit reads (the facts of one received copy, the DNS side's
// results, where the check's copies landed per provider) and what it says (findings, fix-first, score, not checked).
import type { Finding, NotChecked, ProviderName } from '../domain/auditReport';
import type { AuthVerdict } from '../domain/receivingVerdicts';
import type { VerifiedDomains } from '../scanner/authResults';

export type {
  AuditReport,
  Deduction,
  Finding,
  Judgement,
  NotChecked,
  ProviderName,
  RuleChecklist,
  Severity,
} from '../domain/auditReport';
export type { VerifiedDomains } from '../scanner/authResults';

/** What one check module concludes: its findings, or that it could not judge. */
export interface CheckOutcome {
  findings: Finding[];
  notChecked: NotChecked[];
}

/** A fact the DNS side established, or why it could not ("lookups timed out"). */
export type DnsFact = { state: 'known'; value: boolean } | { state: 'unknown'; why: string };

/**
 * The DNS side's results for the check (SPF, DMARC, DKIM key, MX, BIMI, PTR, blocklists): its modules' own findings
 * and what they could not judge, plus the facts the bulk-sender rule sets need. Absent as a whole when DNS was not
 * consulted: every rule item that needs it is then unknown.
 */
export interface DnsResults {
  findings: readonly Finding[];
  notChecked: readonly NotChecked[];
  /** A DMARC record is published for the From domain (policy p=none or stronger). */
  dmarcPublished: DnsFact;
  /** The From domain aligns with the SPF or the DKIM domain, per the record's aspf/adkim. */
  dmarcAligned: DnsFact;
  /** The sending IP has a PTR whose name resolves back to it (forward-confirmed reverse DNS). */
  fcrdns: DnsFact;
}

/** The sending host: the IP that handed the message to the receiver, from the receiver's own Received. */
export interface SendingHost {
  ip: string;
  /** True when that hop says it used TLS, false when it says it did not, undefined when it says neither. */
  tls: boolean | undefined;
}

/** What the audit reads of the copy's header block (see headerFacts.ts). */
export interface HeaderFacts {
  fromCount: number;
  /** The From address's domain, lower-cased, when there is exactly one From with one address. */
  fromDomain: string | undefined;
  dateCount: number;
  messageIdCount: number;
  /** The https URIs of List-Unsubscribe (at most a few), and whether a mailto: is offered. */
  unsubscribeHttps: readonly string[];
  unsubscribeMailto: boolean;
  /** List-Unsubscribe-Post reads exactly `List-Unsubscribe=One-Click`. */
  oneClickPost: boolean;
  /** The topmost Return-Path's domain (the receiver's delivery agent writes it from MAIL FROM), lower-cased. */
  returnPathDomain: string | undefined;
  /** DKIM-Signature fields past the few read (absent in facts stored before it was counted). */
  dkimSignaturesOverCap?: number | undefined;
  /** Header names (lower-cased) covered by each DKIM-Signature's h= tag, with its d= and s=. */
  dkimSignatures: readonly {
    domain: string;
    selector: string | undefined;
    signedHeaders: readonly string[];
  }[];
}

/** One link of the HTML part. */
export interface LinkFact {
  href: string;
  /** Lower-cased host, or undefined for a link that is not http(s). */
  host: string | undefined;
  https: boolean;
  /** A domain the link's visible text names, when it names one (`www.example.com`, `https://…`). */
  textDomain: string | undefined;
}

/** What the audit reads of the copy's body (see contentFacts.ts); undefined where the source was not fetched. */
export interface ContentFacts {
  /** The source was longer than the cap: what follows reads the capped prefix only. */
  truncated: boolean;
  /** Bytes of the decoded HTML part (UTF-8), 0 without one. */
  htmlBytes: number;
  hasHtml: boolean;
  /** A text/plain part with some non-blank text. */
  hasText: boolean;
  /** Characters of visible text in the HTML (tags, scripts and styles out, white space collapsed). */
  htmlTextChars: number;
  images: { remote: number; embedded: number; trackingPixels: number };
  links: readonly LinkFact[];
  /** Links seen beyond those kept (the HTML had more than the kept cap). */
  linksOverCap: number;
  /** A link of the HTML, or a URL of the text part, that says unsubscribe or opt out (its address or its text). */
  unsubscribeLink: boolean;
  scripts: number;
  forms: number;
  attachments: readonly { contentType: string; filename: string | undefined; bytes: number }[];
  /** The parser stopped early (a limit it enforces); what was read until then is kept. */
  parseProblem: string | undefined;
}

/** One copy's facts as the audit reads them: whose copy, and what the receiver and the sender wrote. */
export interface CopyFacts {
  /** The provider of the seed whose copy was read. */
  provider: ProviderName;
  /** Undefined when the receiver's Received names no IP. */
  sendingHost: SendingHost | undefined;
  /** The receiver's own Authentication-Results, as the scanner keeps them; null where it wrote none it is trusted for. */
  auth: AuthVerdict | null;
  /**
   * The domains the receiver verified in that same header (dkim=pass header.d, spf=pass smtp.mailfrom); null where
   * it wrote none it is trusted for. Alignment and whatever rests on a signature read these alone.
   */
  verified: VerifiedDomains | null;
  headers: HeaderFacts;
  content: ContentFacts | undefined;
}

/** Where the check's copies went at one provider (counts of copies). */
export interface ProviderPlacement {
  inbox: number;
  spam: number;
  /** Not received by the end of the check. */
  missing: number;
  /** Elsewhere (Promotions, Trash, …). */
  other: number;
}

export interface AuditInput {
  copy: CopyFacts;
  /** Undefined when the DNS side was not consulted at all. */
  dns: DnsResults | undefined;
  placements: Readonly<Record<ProviderName, ProviderPlacement>>;
}
