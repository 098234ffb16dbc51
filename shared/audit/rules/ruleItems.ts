// Owns the items the bulk-sender rule sets share, each judged once from the copy's facts and the DNS side's results:
// pass, fail, or unknown with why (never a pass for what could not be checked).
import type { CopyFacts, DnsFact, DnsResults, Judgement, Severity } from '../types';

export const RULE_ITEMS = [
  'spf-pass',
  'dkim-pass',
  'dmarc-published',
  'dmarc-aligned',
  'one-click-unsubscribe',
  'tls',
  'fcrdns',
  'rfc5322',
  'no-provider-from',
] as const;
export type RuleItemId = (typeof RULE_ITEMS)[number];

export interface ItemJudgement {
  judgement: Judgement;
  detail?: string | undefined;
}

/** What each item is called, how much a failure weighs, and the one-sentence fix. */
export const ITEM_TEXT: Readonly<Record<RuleItemId, { label: string; severity: Severity; fix: string }>> = {
  'spf-pass': {
    label: 'SPF passes',
    severity: 'high',
    fix: "Add the sending host to the SPF record of the Return-Path's domain.",
  },
  'dkim-pass': {
    label: 'DKIM passes',
    severity: 'high',
    fix: 'Sign every message with DKIM and publish the selector key.',
  },
  'dmarc-published': {
    label: 'DMARC record published',
    severity: 'high',
    fix: 'Publish a DMARC record for the From domain (p=none at least, with rua= to get reports).',
  },
  'dmarc-aligned': {
    label: 'From aligned with SPF or DKIM',
    severity: 'high',
    fix: 'Sign with d= of the From domain (or send with a Return-Path under it) so DMARC aligns.',
  },
  'one-click-unsubscribe': {
    label: 'One-click unsubscribe (RFC 8058)',
    severity: 'medium',
    fix: 'Add List-Unsubscribe with an https URI and List-Unsubscribe-Post: List-Unsubscribe=One-Click, both in the DKIM h= list.',
  },
  tls: {
    label: 'TLS in transit',
    severity: 'medium',
    fix: 'Turn on STARTTLS on the sending MTA for outbound mail.',
  },
  fcrdns: {
    label: 'Valid PTR with forward-confirmed reverse DNS',
    severity: 'high',
    fix: "Give the sending IP a PTR whose name resolves back to that IP (ask the IP's owner).",
  },
  rfc5322: {
    label: 'RFC 5322 essentials (one From, a Date, a Message-ID)',
    severity: 'high',
    fix: 'Send exactly one From, one Date and one Message-ID header.',
  },
  'no-provider-from': {
    label: "No From in a mailbox provider's own domain",
    severity: 'critical',
    fix: "Send from your own domain: a From at a mailbox provider's domain fails its DMARC p=reject.",
  },
};

/** Consumer mailbox domains whose owners publish DMARC p=reject and refuse their use by other senders. */
const PROVIDER_DOMAINS: Readonly<Record<string, string>> = {
  'gmail.com': 'gmail.com',
  'googlemail.com': 'gmail.com',
  'yahoo.com': 'yahoo.com',
  'ymail.com': 'yahoo.com',
  'aol.com': 'aol.com',
  'outlook.com': 'outlook.com',
  'hotmail.com': 'outlook.com',
  'live.com': 'outlook.com',
  'msn.com': 'outlook.com',
  'icloud.com': 'icloud.com',
  'me.com': 'icloud.com',
};

const NO_AUTH = 'no authentication results from this receiver';

const authItem = (copy: CopyFacts, method: 'spf' | 'dkim'): ItemJudgement => {
  if (copy.auth === null) return { judgement: 'unknown', detail: NO_AUTH };
  const result = copy.auth[method];
  if (result === null)
    return { judgement: 'unknown', detail: `the receiver reported no ${method.toUpperCase()} result` };
  return result === 'pass'
    ? { judgement: 'pass' }
    : { judgement: 'fail', detail: `the receiver reported ${method}=${result}` };
};

const dnsItem = (
  dns: DnsResults | undefined,
  pick: (dns: DnsResults) => DnsFact,
  failDetail: string,
): ItemJudgement => {
  if (dns === undefined)
    return { judgement: 'unknown', detail: 'DNS unknown: the DNS side was not consulted' };
  const fact = pick(dns);
  if (fact.state === 'unknown') return { judgement: 'unknown', detail: `DNS unknown: ${fact.why}` };
  return fact.value ? { judgement: 'pass' } : { judgement: 'fail', detail: failDetail };
};

/** The receiver's own DMARC pass proves a published record and an aligned domain, whatever DNS answered. */
const dmarcItem = (
  copy: CopyFacts,
  dns: DnsResults | undefined,
  pick: (dns: DnsResults) => DnsFact,
  failDetail: string,
) => (copy.auth?.dmarc === 'pass' ? { judgement: 'pass' as const } : dnsItem(dns, pick, failDetail));

const oneClick = ({ headers }: CopyFacts): ItemJudgement => {
  const missing: string[] = [];
  if (headers.unsubscribeHttps.length === 0) missing.push('no https List-Unsubscribe URI');
  if (!headers.oneClickPost) missing.push('no List-Unsubscribe-Post: List-Unsubscribe=One-Click');
  const covered = headers.dkimSignatures.some(
    (s) => s.signedHeaders.includes('list-unsubscribe') && s.signedHeaders.includes('list-unsubscribe-post'),
  );
  if (!covered) missing.push('no DKIM signature covers both List-Unsubscribe headers');
  return missing.length === 0 ? { judgement: 'pass' } : { judgement: 'fail', detail: missing.join('; ') };
};

const tls = ({ sendingHost }: CopyFacts): ItemJudgement => {
  if (sendingHost === undefined)
    return { judgement: 'unknown', detail: "the receiver's Received headers name no sending host" };
  if (sendingHost.tls === undefined)
    return { judgement: 'unknown', detail: "the receiver's Received does not say" };
  return sendingHost.tls
    ? { judgement: 'pass' }
    : { judgement: 'fail', detail: 'the hop into the receiver ran without TLS' };
};

const rfc5322 = ({ headers }: CopyFacts): ItemJudgement => {
  const wrong = [
    headers.fromCount === 1 ? '' : `${headers.fromCount} From headers`,
    headers.dateCount === 1 ? '' : `${headers.dateCount} Date headers`,
    headers.messageIdCount === 1 ? '' : `${headers.messageIdCount} Message-ID headers`,
  ].filter((w) => w !== '');
  return wrong.length === 0 ? { judgement: 'pass' } : { judgement: 'fail', detail: wrong.join(', ') };
};

const providerFrom = ({ headers }: CopyFacts): ItemJudgement => {
  if (headers.fromDomain === undefined)
    return { judgement: 'unknown', detail: 'no single From address to read' };
  const owner = PROVIDER_DOMAINS[headers.fromDomain];
  if (owner === undefined) return { judgement: 'pass' };
  const signedByOwner = headers.dkimSignatures.some((s) => PROVIDER_DOMAINS[s.domain] === owner);
  return signedByOwner
    ? { judgement: 'pass' }
    : { judgement: 'fail', detail: `From is at ${headers.fromDomain} but the message is not signed by it` };
};

export const judgeItems = (
  copy: CopyFacts,
  dns: DnsResults | undefined,
): Record<RuleItemId, ItemJudgement> => ({
  'spf-pass': authItem(copy, 'spf'),
  'dkim-pass': authItem(copy, 'dkim'),
  'dmarc-published': dmarcItem(copy, dns, (d) => d.dmarcPublished, 'no DMARC record for the From domain'),
  'dmarc-aligned': dmarcItem(
    copy,
    dns,
    (d) => d.dmarcAligned,
    'neither the SPF nor the DKIM domain aligns with From',
  ),
  'one-click-unsubscribe': oneClick(copy),
  tls: tls(copy),
  fcrdns: dnsItem(dns, (d) => d.fcrdns, 'the sending IP has no PTR that resolves back to it'),
  rfc5322: rfc5322(copy),
  'no-provider-from': providerFrom(copy),
});
