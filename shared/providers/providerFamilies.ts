// Owns the provider data more than one preset shares: the defaults most providers have, Microsoft's (Outlook.com and
// Microsoft 365 run on Exchange) and Yahoo's (AOL runs on Yahoo Mail), so each fact is written once.
import type { DetectedCategory } from '../domain/categories';
import type { EvidenceHeader } from '../domain/envelopeEvidence';
import type { MailboxServer } from '../domain/mailboxServer';
import type { ReceivingTrust } from '../domain/receivingTrust';
import type { OAuth2Settings, ProviderPreset, ProviderQuirks, Quirk, Source } from './providerPreset';

export const TLS_993 = (host: string): MailboxServer => ({ host, port: 993, secure: true });

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
export const EVIDENCE_UNCONFIRMED = (note: string): Quirk<readonly EvidenceHeader[]> => ({
  value: ['received'],
  confidence: 'unconfirmed',
  note,
});
const NOT_OAUTH: Source = { confidence: 'third-party', note: 'no OAuth2 for IMAP open to third-party apps' };

type Defaulted<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
type PresetFields = Omit<Defaulted<ProviderPreset, 'userName' | 'oauth2'>, 'quirks' | 'sources'> & {
  quirks: Defaulted<ProviderQuirks, 'deliveryVerdictHeader' | 'gmailTabs'>;
  sources: Defaulted<ProviderPreset['sources'], 'oauth2'>;
};

/** A preset with what most providers share: the full address as user name, no OAuth2, no tabs, no verdict header. */
export const preset = (fields: PresetFields): ProviderPreset => ({
  userName: 'email',
  oauth2: undefined,
  ...fields,
  quirks: { deliveryVerdictHeader: NO_DELIVERY_HEADER, gmailTabs: NO_GMAIL_TABS, ...fields.quirks },
  sources: { oauth2: NOT_OAUTH, ...fields.sources },
});

const MICROSOFT_SCOPE = 'https://outlook.office.com/IMAP.AccessAsUser.All offline_access';
const microsoftOAuth2 = (tenant: 'consumers' | 'organizations'): OAuth2Settings => ({
  authorizeEndpoint: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`,
  tokenEndpoint: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`,
  scope: MICROSOFT_SCOPE,
});
const MICROSOFT_RECEIVING: Quirk<ReceivingTrust> = {
  value: { auth: { ids: [], unnamedTopmost: true }, spamFilters: ['microsoft'] },
  confidence: 'documented',
  note: 'Microsoft Learn "Anti-spam message headers": Authentication-results with no authserv-id (spf=, dkim=, dmarc=, compauth=), recognised as the topmost one; X-Forefront-Antispam-Report SCL/SFV/CAT and X-Microsoft-Antispam BCL. Public Outlook.com and Exchange Online copies show these appended below X-MS-Exchange-Organization-Network-Message-Id, after the message\'s own headers (Microsoft Learn "Header firewall": X-MS-Exchange-Organization-* are removed from mail arriving from outside): all of them are read only where that mark is there, the verdict headers only below it',
};

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
const MICROSOFT_EVIDENCE = EVIDENCE_UNCONFIRMED(
  'no Delivered-To seen in public samples and Microsoft documents none; Received lines seen without for <…>: expect To/Cc only, check with the probe',
);

/** Outlook.com and Microsoft 365: one Exchange server, folder names, verdict headers; a tenant and notes of their own. */
export const microsoftPreset = (fields: {
  provider: ProviderPreset['provider'];
  label: string;
  tenant: 'consumers' | 'organizations';
  quirks: Pick<ProviderQuirks, 'plusAddressing' | 'specialUse'>;
  sources: Omit<ProviderPreset['sources'], 'folderHints'>;
}): ProviderPreset =>
  preset({
    provider: fields.provider,
    label: fields.label,
    imap: TLS_993('outlook.office365.com'),
    authMethods: ['oauth2'],
    folderHints: MICROSOFT_FOLDERS,
    oauth2: microsoftOAuth2(fields.tenant),
    quirks: {
      ...fields.quirks,
      deliveryVerdictHeader: MICROSOFT_DELIVERY_HEADER,
      envelopeEvidence: MICROSOFT_EVIDENCE,
      receiving: MICROSOFT_RECEIVING,
    },
    sources: {
      ...fields.sources,
      folderHints: { confidence: 'third-party', note: 'captured Exchange LIST transcripts' },
    },
  });

/** Authserv-ids in Yahoo copies published on GitHub (Yahoo names the receiving host; it documents none). */
export const YAHOO_AUTHSERV_IDS = [
  'atlas-production.v2-mail-prod1-gq1.omega.yahoo.com',
  'atlas-production.v2-mail-prod1-bf1.omega.yahoo.com',
  'atlas-baseline-production.v2-mail-prod1-gq1.omega.yahoo.com',
  'atlas206.free.mail.ne1.yahoo.com',
  'atlas125.free.mail.bf1.yahoo.com',
  'atlas116.free.mail.bf1.yahoo.com',
  'atlas102.free.mail.gq1.yahoo.com',
];
// Older accounts are reported with "Bulk", newer with "Bulk Mail"; the web UI calls it Spam.
const YAHOO_FOLDERS: Readonly<Record<string, DetectedCategory>> = { Bulk: 'spam', 'Bulk Mail': 'spam' };

/** Yahoo Mail and AOL (which runs on it): app passwords only, the Bulk folders; a host and notes of their own. */
export const yahooMailPreset = (fields: {
  provider: ProviderPreset['provider'];
  label: string;
  host: string;
  quirks: Pick<ProviderQuirks, 'plusAddressing' | 'specialUse' | 'envelopeEvidence' | 'receiving'>;
  sources: Omit<ProviderPreset['sources'], 'oauth2'>;
}): ProviderPreset =>
  preset({
    provider: fields.provider,
    label: fields.label,
    imap: TLS_993(fields.host),
    authMethods: ['app-password'],
    folderHints: YAHOO_FOLDERS,
    quirks: fields.quirks,
    sources: fields.sources,
  });
