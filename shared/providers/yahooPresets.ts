// Owns the presets of Yahoo's mail family (Yahoo Mail and AOL), as data with their sources, beside the other
// providers' in presetTable.ts.
import { EVIDENCE_UNCONFIRMED, YAHOO_AUTHSERV_IDS, yahooMailPreset } from './providerFamilies';
import type { Provider, ProviderPreset } from './providerPreset';

export const YAHOO_FAMILY_PRESETS: Readonly<Record<Extract<Provider, 'yahoo' | 'aol'>, ProviderPreset>> = {
  yahoo: yahooMailPreset({
    provider: 'yahoo',
    label: 'Yahoo Mail',
    host: 'imap.mail.yahoo.com',
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
    },
  }),

  aol: yahooMailPreset({
    provider: 'aol',
    label: 'AOL Mail',
    host: 'imap.aol.com',
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
    },
  }),
};
