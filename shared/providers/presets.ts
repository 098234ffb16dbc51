// Owns what we know about each mailbox provider: its IMAP server, how to log in there, which folder names mean
// spam or trash, its quirks, and for every one of these where the knowledge comes from and how sure it is.
//
// Confidence: `documented` means the provider's own text was read (Google's IMAP and XOAUTH2 pages, Microsoft's
// "Authenticate an IMAP, POP or SMTP connection using OAuth"); `third-party` means client guides, captured
// transcripts or reports that quote or observe the provider; `unconfirmed` means nothing better than a guess by
// analogy was found. Nothing here was checked against a live account.
import { normaliseAccountEmail, parseAccountAddress } from '../domain/address';
import type { DetectedCategory } from '../domain/categories';
import { EVIDENCE_HEADERS, type EvidenceHeader } from '../domain/envelopeEvidence';
import { InvalidInputError } from '../domain/errors';
import type { MailboxServer } from '../domain/mailboxServer';
import type { ReceivingTrust } from '../domain/receivingTrust';

export { type MsDelivery, msDeliveryOf } from './msDelivery';

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

const TLS_993 = (host: string): MailboxServer => ({ host, port: 993, secure: true });

const MICROSOFT_SCOPE = 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access';
const microsoftOAuth2 = (tenant: 'consumers' | 'organizations'): OAuth2Settings => ({
  authorizeEndpoint: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`,
  tokenEndpoint: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`,
  scope: MICROSOFT_SCOPE,
});

const NO_DELIVERY_HEADER: Quirk<undefined> = {
  value: undefined,
  confidence: 'third-party',
  note: 'no delivery-verdict header known',
};
const NO_GMAIL_TABS: Quirk<false> = {
  value: false,
  confidence: 'documented',
  note: 'X-GM-EXT-1 is Gmail-only',
};
/**
 * Providers for which no public header sample or documentation was found: only the topmost Received, which the
 * receiver always writes, counts, and only with its `for <address>` clause. A Delivered-To or X-Original-To the
 * provider is not known to write may be the sender's, so it is never read there; `npm run admin -- accounts add`
 * reports what a probe to a tagged address brought.
 */
const EVIDENCE_UNCONFIRMED = (note: string): Quirk<readonly EvidenceHeader[]> => ({
  value: ['received'],
  confidence: 'unconfirmed',
  note,
});
const MICROSOFT_RECEIVING: Quirk<ReceivingTrust> = {
  value: { auth: { ids: [], unnamedTopmost: true }, spamFilters: ['microsoft'] },
  confidence: 'documented',
  note: 'Microsoft Learn "Anti-spam message headers": Authentication-results with no authserv-id (spf=, dkim=, dmarc=, compauth=), recognised as the topmost one; X-Forefront-Antispam-Report SCL/SFV/CAT and X-Microsoft-Antispam BCL. Public Outlook.com and Exchange Online copies show these appended below X-MS-Exchange-Organization-Network-Message-Id, after the message\'s own headers (Microsoft Learn "Header firewall": X-MS-Exchange-Organization-* are removed from mail arriving from outside): all of them are read only where that mark is there, the verdict headers only below it',
};
/** Authserv-ids in Yahoo copies published on GitHub (Yahoo names the receiving host; it documents none). */
const YAHOO_AUTHSERV_IDS = [
  'atlas-production.v2-mail-prod1-gq1.omega.yahoo.com',
  'atlas-production.v2-mail-prod1-bf1.omega.yahoo.com',
  'atlas-baseline-production.v2-mail-prod1-gq1.omega.yahoo.com',
  'atlas206.free.mail.ne1.yahoo.com',
  'atlas125.free.mail.bf1.yahoo.com',
  'atlas116.free.mail.bf1.yahoo.com',
  'atlas102.free.mail.gq1.yahoo.com',
];
const NOT_OAUTH: Source = { confidence: 'third-party', note: 'no OAuth2 for IMAP open to third-party apps' };

// Exchange (Outlook.com and Microsoft 365 alike) answers CAPABILITY without SPECIAL-USE
// (`IMAP4 IMAP4rev1 AUTH=PLAIN AUTH=XOAUTH2 SASL-IR UIDPLUS MOVE ID UNSELECT CHILDREN IDLE NAMESPACE LITERAL+`,
// several captures), while captured LIST transcripts show `\Junk` on "Junk Email" and `\Trash` on "Deleted Items".
const MICROSOFT_FOLDERS: Readonly<Record<string, DetectedCategory>> = {
  'Junk Email': 'spam',
  'Deleted Items': 'trash',
};
const MICROSOFT_DELIVERY_HEADER: Quirk<string> = {
  value: 'X-Microsoft-Antispam-Mailbox-Delivery',
  confidence: 'third-party',
  note: 'dest:I inbox, dest:J junk, dest:C custom folder (Oxford IT); Microsoft does not document it',
};

const PRESETS: Readonly<Record<Provider, ProviderPreset>> = {
  gmail: {
    provider: 'gmail',
    label: 'Gmail',
    imap: TLS_993('imap.gmail.com'),
    authMethods: ['app-password', 'oauth2'],
    userName: 'email',
    folderHints: { '[Gmail]/Spam': 'spam', '[Gmail]/Trash': 'trash' },
    oauth2: {
      authorizeEndpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenEndpoint: 'https://oauth2.googleapis.com/token',
      scope: 'https://mail.google.com/',
    },
    quirks: {
      plusAddressing: {
        value: 'supported',
        confidence: 'third-party',
        note: 'name+anything@gmail.com; Gmail help (answer 12096) as cited, confirmed by many reports',
      },
      specialUse: {
        value: 'advertised',
        confidence: 'documented',
        note: 'SPECIAL-USE on [Gmail]/ folders; some countries see "[Google Mail]/…" with localised names',
      },
      deliveryVerdictHeader: NO_DELIVERY_HEADER,
      gmailTabs: {
        value: true,
        confidence: 'documented',
        note: 'X-GM-EXT-1: tabs via X-GM-RAW "category:<tab>" (Gmail IMAP extensions page)',
      },
      envelopeEvidence: {
        value: ['delivered-to', 'received'],
        confidence: 'third-party',
        note: 'Delivered-To with the plus tag, topmost, on every copy; mx.google.com Received headers add for <address> (public header samples)',
      },
      receiving: {
        value: { auth: { ids: ['mx.google.com'] }, spamFilters: [] },
        confidence: 'third-party',
        note: 'Authentication-Results: mx.google.com; … in Google help pages and every public sample; Gmail documents no spam-score header',
      },
    },
    sources: {
      imap: { confidence: 'documented', note: "Google's IMAP page: imap.gmail.com:993, SSL required" },
      auth: {
        confidence: 'documented',
        note: 'XOAUTH2 (Google XOAUTH2 page); app passwords need 2-Step Verification (Google help, as cited)',
      },
      userName: { confidence: 'third-party', note: 'the full address' },
      folderHints: {
        confidence: 'documented',
        note: "the LIST transcript of Google's IMAP extensions page; SPECIAL-USE covers localised names",
      },
      oauth2: {
        confidence: 'documented',
        note: 'scope https://mail.google.com/ (XOAUTH2 page); restricted scope, needs app verification',
      },
    },
  },

  outlook: {
    provider: 'outlook',
    label: 'Outlook.com / Hotmail',
    imap: TLS_993('outlook.office365.com'),
    authMethods: ['oauth2'],
    userName: 'email',
    folderHints: MICROSOFT_FOLDERS,
    oauth2: microsoftOAuth2('consumers'),
    quirks: {
      plusAddressing: {
        value: 'supported',
        confidence: 'third-party',
        note: 'listed as plus-addressing by third parties; Microsoft documents it only for Exchange Online',
      },
      specialUse: {
        value: 'attributes-only',
        confidence: 'unconfirmed',
        note: 'as Exchange Online; not seen for a consumer mailbox, so treat it as names-only',
      },
      deliveryVerdictHeader: MICROSOFT_DELIVERY_HEADER,
      gmailTabs: NO_GMAIL_TABS,
      envelopeEvidence: EVIDENCE_UNCONFIRMED(
        'no Delivered-To seen in public samples and Microsoft documents none; Received lines seen without for <…>: expect To/Cc only, check with the probe',
      ),
      receiving: MICROSOFT_RECEIVING,
    },
    sources: {
      imap: {
        confidence: 'third-party',
        note: "Microsoft's Outlook.com settings page as client guides quote it; older guides say imap-mail.outlook.com",
      },
      auth: {
        confidence: 'third-party',
        note: 'basic auth off for Outlook.com since 16 Sep 2024 (Microsoft notice, as reported); XOAUTH2 documented',
      },
      userName: { confidence: 'third-party', note: 'the full address, not an alias' },
      folderHints: { confidence: 'third-party', note: 'captured Exchange LIST transcripts' },
      oauth2: {
        confidence: 'documented',
        note: 'Microsoft OAuth-for-IMAP page: IMAP.AccessAsUser.All, offline_access for a refresh token',
      },
    },
  },

  microsoft365: {
    provider: 'microsoft365',
    label: 'Microsoft 365 (Exchange Online)',
    imap: TLS_993('outlook.office365.com'),
    authMethods: ['oauth2'],
    userName: 'email',
    folderHints: MICROSOFT_FOLDERS,
    oauth2: microsoftOAuth2('organizations'),
    quirks: {
      plusAddressing: {
        value: 'supported',
        confidence: 'third-party',
        note: 'on by default per "Plus addressing in Exchange Online" (as cited); admins can turn it off',
      },
      specialUse: {
        value: 'attributes-only',
        confidence: 'third-party',
        note: 'captured: \\Junk, \\Trash, \\Sent, \\Drafts in LIST, no SPECIAL-USE in CAPABILITY',
      },
      deliveryVerdictHeader: MICROSOFT_DELIVERY_HEADER,
      gmailTabs: NO_GMAIL_TABS,
      envelopeEvidence: EVIDENCE_UNCONFIRMED(
        'no Delivered-To seen in public samples and Microsoft documents none; Received lines seen without for <…>: expect To/Cc only, check with the probe',
      ),
      receiving: MICROSOFT_RECEIVING,
    },
    sources: {
      imap: { confidence: 'third-party', note: 'outlook.office365.com:993 in captures and client guides' },
      auth: {
        confidence: 'third-party',
        note: 'basic auth for IMAP off in Exchange Online since Oct 2022; XOAUTH2 documented by Microsoft',
      },
      userName: {
        confidence: 'third-party',
        note: 'the user principal name, usually the address; give `user` when they differ',
      },
      folderHints: { confidence: 'third-party', note: 'captured Exchange LIST transcripts' },
      oauth2: {
        confidence: 'documented',
        note: 'multi-tenant app; a single-tenant app must put its tenant id in place of "organizations"',
      },
    },
  },

  yahoo: {
    provider: 'yahoo',
    label: 'Yahoo Mail',
    imap: TLS_993('imap.mail.yahoo.com'),
    authMethods: ['app-password'],
    userName: 'email',
    // Older accounts are reported with "Bulk", newer with "Bulk Mail"; the web UI calls it Spam.
    folderHints: { Bulk: 'spam', 'Bulk Mail': 'spam' },
    oauth2: undefined,
    quirks: {
      plusAddressing: {
        value: 'unsupported',
        confidence: 'third-party',
        note: 'user reports say + is refused; Yahoo offers hyphen-style disposable addresses instead',
      },
      specialUse: {
        value: 'attributes-only',
        confidence: 'third-party',
        note: 'captured LIST shows \\Junk on "Bulk Mail"; captured CAPABILITY has no SPECIAL-USE',
      },
      deliveryVerdictHeader: NO_DELIVERY_HEADER,
      gmailTabs: NO_GMAIL_TABS,
      envelopeEvidence: EVIDENCE_UNCONFIRMED(
        'old public samples carry X-Apparently-To (not read: not documented, not seen lately); nothing current found: check with the probe',
      ),
      receiving: {
        value: { auth: { ids: YAHOO_AUTHSERV_IDS }, spamFilters: [] },
        confidence: 'third-party',
        note: 'Yahoo names the receiving host, by exact name only (a sender can write any name under yahoo.com): the ids seen in public copies on GitHub (a Thunderbird export of MMS mail, 2022; a header-parsing script, 2024; TryHackMe phishing-room write-ups; authentication-results test fixtures); a copy from another host shows no results until the account lists its id in authservIds; Yahoo documents no spam-score header',
      },
    },
    sources: {
      imap: { confidence: 'third-party', note: 'imap.mail.yahoo.com:993 SSL in every client guide found' },
      auth: {
        confidence: 'third-party',
        note: 'third-party clients need an app password (2-step verification)',
      },
      userName: { confidence: 'third-party', note: 'the full address' },
      folderHints: {
        confidence: 'third-party',
        note: 'captured LIST lines: "Bulk Mail" (\\Junk), "Draft", "Trash"',
      },
      oauth2: NOT_OAUTH,
    },
  },

  aol: {
    provider: 'aol',
    label: 'AOL Mail',
    imap: TLS_993('imap.aol.com'),
    authMethods: ['app-password'],
    userName: 'email',
    folderHints: { Bulk: 'spam', 'Bulk Mail': 'spam' },
    oauth2: undefined,
    quirks: {
      plusAddressing: {
        value: 'unknown',
        confidence: 'unconfirmed',
        note: 'nothing found either way; `accounts test --send-via` finds out',
      },
      specialUse: {
        value: 'unknown',
        confidence: 'unconfirmed',
        note: 'assumed like Yahoo, whose mail platform AOL is reported to share',
      },
      deliveryVerdictHeader: NO_DELIVERY_HEADER,
      gmailTabs: NO_GMAIL_TABS,
      envelopeEvidence: EVIDENCE_UNCONFIRMED(
        'runs on Yahoo Mail: as Yahoo, nothing current found; check with the probe',
      ),
      receiving: {
        value: {
          auth: { ids: ['atlas101.aol.mail.bf1.yahoo.com', 'atlas206.aol.mail.ne1.yahoo.com'] },
          spamFilters: [],
        },
        confidence: 'third-party',
        note: "AOL runs on Yahoo's hosts: the two ids of AOL copies seen in public authentication-results test fixtures on GitHub, by exact name; set the account's authservIds for any other",
      },
    },
    sources: {
      imap: { confidence: 'third-party', note: 'imap.aol.com:993 SSL in client guides' },
      auth: {
        confidence: 'third-party',
        note: 'AOL help mentions app passwords for other apps; full address',
      },
      userName: { confidence: 'third-party', note: 'AOL help: use your full address including @aol.com' },
      folderHints: {
        confidence: 'unconfirmed',
        note: '"Bulk Mail" assumed as at Yahoo; no AOL LIST transcript found',
      },
      oauth2: NOT_OAUTH,
    },
  },

  icloud: {
    provider: 'icloud',
    label: 'iCloud Mail',
    imap: TLS_993('imap.mail.me.com'),
    authMethods: ['app-password'],
    userName: 'icloud-local-part',
    folderHints: { Junk: 'spam', 'Deleted Messages': 'trash' },
    oauth2: undefined,
    quirks: {
      plusAddressing: {
        value: 'supported',
        confidence: 'third-party',
        note: 'receive-only +tags reported since 2014; Apple does not document them',
      },
      specialUse: {
        value: 'unknown',
        confidence: 'unconfirmed',
        note: 'a 2026 capture lists LIST-STATUS and WITHIN after login; SPECIAL-USE not confirmed',
      },
      deliveryVerdictHeader: NO_DELIVERY_HEADER,
      gmailTabs: NO_GMAIL_TABS,
      envelopeEvidence: EVIDENCE_UNCONFIRMED(
        'no public header sample or documentation found: check with the probe',
      ),
      receiving: {
        value: {
          auth: {
            // The order iCloud writes them in, top down.
            ids: [
              'bimi.icloud.com',
              'arc.icloud.com',
              'dmarc.icloud.com',
              'dkim-verifier.icloud.com',
              'spf.icloud.com',
            ],
            methodIds: {
              arc: 'arc.icloud.com',
              dmarc: 'dmarc.icloud.com',
              dkim: 'dkim-verifier.icloud.com',
              spf: 'spf.icloud.com',
            },
          },
          spamFilters: [],
        },
        confidence: 'third-party',
        note: 'public samples: one Authentication-Results per method, always in the order bimi.icloud.com, arc.icloud.com (newer copies), dmarc.icloud.com, dkim-verifier.icloud.com, spf.icloud.com at the top; Apple documents none',
      },
    },
    sources: {
      imap: {
        confidence: 'third-party',
        note: "Apple's iCloud Mail settings page as quoted: imap.mail.me.com:993, SSL; no POP",
      },
      auth: {
        confidence: 'third-party',
        note: 'app-specific password (two-factor required); AUTH=XOAUTH2 is advertised but only for Apple apps',
      },
      userName: {
        confidence: 'third-party',
        note: 'Apple (as quoted): "usually the name part", e.g. emilyparker; else try the full address',
      },
      folderHints: {
        confidence: 'third-party',
        note: 'client configs: Sent Messages, Deleted Messages, Junk',
      },
      oauth2: NOT_OAUTH,
    },
  },

  imap: {
    provider: 'imap',
    label: 'Any IMAP server',
    imap: undefined,
    authMethods: ['password', 'oauth2'],
    userName: 'email',
    folderHints: {},
    oauth2: undefined,
    quirks: {
      plusAddressing: { value: 'unknown', confidence: 'unconfirmed', note: 'depends on the server' },
      specialUse: { value: 'unknown', confidence: 'unconfirmed', note: 'depends on the server' },
      deliveryVerdictHeader: NO_DELIVERY_HEADER,
      gmailTabs: NO_GMAIL_TABS,
      envelopeEvidence: {
        value: EVIDENCE_HEADERS,
        confidence: 'documented',
        note: 'depends on the server: Dovecot LMTP writes Delivered-To and Received for <…> on single-recipient deliveries, Postfix X-Original-To on local ones',
      },
      receiving: {
        value: { auth: { ids: [] }, spamFilters: [] },
        confidence: 'unconfirmed',
        note: 'depends on the server: nothing trusted unless the account names its authservIds and spamFilters',
      },
    },
    sources: {
      imap: { confidence: 'unconfirmed', note: 'no default: the host must be given' },
      auth: { confidence: 'unconfirmed', note: 'a password, or an OAuth2 grant with its own token endpoint' },
      userName: { confidence: 'unconfirmed', note: 'the full address unless given' },
      folderHints: { confidence: 'unconfirmed', note: 'none: SPECIAL-USE and known names only' },
      oauth2: { confidence: 'unconfirmed', note: 'the grant carries its own endpoints' },
    },
  },
};

export const isProvider = (value: string): value is Provider =>
  (PROVIDERS as readonly string[]).includes(value);

export const presetFor = (provider: string): ProviderPreset => {
  const name = provider.trim().toLowerCase();
  if (!isProvider(name)) {
    throw new InvalidInputError(`unknown provider "${provider}"; use one of ${PROVIDERS.join(', ')}`);
  }
  return PRESETS[name];
};

export interface PresetInput {
  email: string;
  host?: string | undefined;
  port?: number | undefined;
  /** TLS from the first byte; false means STARTTLS (required by the connector for any non-loopback host). */
  secure?: boolean | undefined;
  user?: string | undefined;
  folders?: Readonly<Record<string, DetectedCategory>> | undefined;
}

export interface AppliedPreset {
  provider: Provider;
  /** Normalised (lower-cased) untagged address. */
  email: string;
  imap: MailboxServer;
  /** The IMAP login name; the caller adds the (app) password or the OAuth2 grant. */
  user: string;
  authMethods: readonly AuthMethod[];
  oauth2: OAuth2Settings | undefined;
  folders: Record<string, DetectedCategory>;
}

const APPLE_DOMAINS = new Set(['icloud.com', 'me.com', 'mac.com']);

const userOf = (preset: ProviderPreset, email: string): string => {
  if (preset.userName === 'email') return email;
  const { local, domain } = parseAccountAddress(email);
  if (APPLE_DOMAINS.has(domain)) return local;
  throw new InvalidInputError(
    `${email} is not an @icloud.com, @me.com or @mac.com address (an iCloud+ custom domain?): give the IMAP user, ` +
      'the name part of the Apple account’s iCloud Mail address',
  );
};

/**
 * The server settings and folder overrides for an account at `provider`: every value given in `input` wins over
 * the preset, and the account's folder overrides replace a hint for the same folder in any letter case (the
 * scanner matches folder names case-insensitively and would otherwise take whichever it met first).
 */
export const applyPreset = (provider: string, input: PresetInput): AppliedPreset => {
  const preset = presetFor(provider);
  const email = normaliseAccountEmail(input.email);
  const host = input.host?.trim() || preset.imap?.host;
  if (!host) {
    throw new InvalidInputError(
      `provider "${preset.provider}" has no default server: give the IMAP host (e.g. --host imap.example.com)`,
    );
  }
  const secure = input.secure ?? preset.imap?.secure ?? true;
  // As `accounts add` does: without a port, TLS means 993 and STARTTLS 143; the preset's port goes with its TLS.
  const port = input.port ?? (secure === preset.imap?.secure ? preset.imap.port : secure ? 993 : 143);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new InvalidInputError(`port ${port} is not a TCP port`);
  }
  const own = input.folders ?? {};
  const ownNames = new Set(Object.keys(own).map((name) => name.toLowerCase()));
  const hints = Object.entries(preset.folderHints).filter(([name]) => !ownNames.has(name.toLowerCase()));
  return {
    provider: preset.provider,
    email,
    imap: { host, port, secure },
    user: input.user?.trim() || userOf(preset, email),
    authMethods: preset.authMethods,
    oauth2: preset.oauth2,
    folders: { ...Object.fromEntries(hints), ...own },
  };
};
