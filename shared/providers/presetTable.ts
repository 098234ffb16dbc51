// Owns the preset of each provider, as data: its IMAP server, login, folder names and quirks, each with its source
// (what a confidence means is on ProviderPreset); what providers share is in providerFamilies.ts, Yahoo's and AOL's
// presets in yahooPresets.ts.
import { EVIDENCE_HEADERS } from '../domain/envelopeEvidence';
import { EVIDENCE_UNCONFIRMED, microsoftPreset, preset, TLS_993 } from './providerFamilies';
import type { Provider, ProviderPreset } from './providerPreset';
import { YAHOO_FAMILY_PRESETS } from './yahooPresets';

export const PRESETS: Readonly<Record<Provider, ProviderPreset>> = {
  gmail: preset({
    provider: 'gmail',
    label: 'Gmail',
    imap: TLS_993('imap.gmail.com'),
    authMethods: ['app-password', 'oauth2'],
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
  }),

  outlook: microsoftPreset({
    provider: 'outlook',
    label: 'Outlook.com / Hotmail',
    tenant: 'consumers',
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
      oauth2: {
        confidence: 'documented',
        note: 'Microsoft OAuth-for-IMAP page: IMAP.AccessAsUser.All, offline_access for a refresh token',
      },
    },
  }),

  microsoft365: microsoftPreset({
    provider: 'microsoft365',
    label: 'Microsoft 365 (Exchange Online)',
    tenant: 'organizations',
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
      oauth2: {
        confidence: 'documented',
        note: 'multi-tenant app; a single-tenant app must put its tenant id in place of "organizations"',
      },
    },
  }),

  ...YAHOO_FAMILY_PRESETS,
  icloud: preset({
    provider: 'icloud',
    label: 'iCloud Mail',
    imap: TLS_993('imap.mail.me.com'),
    authMethods: ['app-password'],
    userName: 'icloud-local-part',
    folderHints: { Junk: 'spam', 'Deleted Messages': 'trash' },
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
    },
  }),

  imap: preset({
    provider: 'imap',
    label: 'Any IMAP server',
    imap: undefined,
    authMethods: ['password', 'oauth2'],
    folderHints: {},
    quirks: {
      plusAddressing: { value: 'unknown', confidence: 'unconfirmed', note: 'depends on the server' },
      specialUse: { value: 'unknown', confidence: 'unconfirmed', note: 'depends on the server' },
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
  }),
};
