// Owns judging the bulk-sender rule items, each once from the copy's facts and the DNS side's results: pass, fail, or
// unknown with why (never a pass for what could not be checked). Whatever rests on a signature or on SPF reads only
// what the receiver itself verified (CopyFacts.verified), never a DKIM-Signature or Return-Path as the sender wrote it.
import type { CopyFacts, DnsFact, DnsResults, Judgement } from '../types';
import { ITEM_TEXT, RULE_ITEMS, type RuleItemId } from './ruleItemText';

export { ITEM_TEXT, RULE_ITEMS, type RuleItemId } from './ruleItemText';

export interface ItemJudgement {
  judgement: Judgement;
  detail?: string | undefined;
  /** A failure that follows from another item's: fixing that one fixes this, so it is one finding, not two. */
  rootCause?: RuleItemId | undefined;
  /** Unknown by nature (ITEM_TEXT's outOfReach): said in the checklist, not counted as a check the audit missed. */
  outOfReach?: boolean | undefined;
}

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

/** Alignment fails for want of a verified DKIM domain: signing with d= of the From domain fixes both. */
const alignedItem = (copy: CopyFacts, dns: DnsResults | undefined, dkim: ItemJudgement): ItemJudgement => {
  const judged = dmarcItem(copy, dns, (d) => d.dmarcAligned, 'neither verified domain aligns with From');
  return judged.judgement === 'fail' && dkim.judgement === 'fail'
    ? { ...judged, rootCause: 'dkim-pass' }
    : judged;
};

const oneClick = ({ headers, verified }: CopyFacts, dkim: ItemJudgement): ItemJudgement => {
  const missing: string[] = [];
  if (headers.unsubscribeHttps.length === 0) missing.push('no https List-Unsubscribe URI');
  if (!headers.oneClickPost) missing.push('no List-Unsubscribe-Post: List-Unsubscribe=One-Click');
  const verifiedCover = headers.dkimSignatures.some(
    (s) =>
      verified?.dkim.includes(s.domain) === true &&
      s.signedHeaders.includes('list-unsubscribe') &&
      s.signedHeaders.includes('list-unsubscribe-post'),
  );
  if (verified === null && missing.length === 0)
    return {
      judgement: 'unknown',
      detail: 'the receiver verified no signature it reported: whether one covers both headers is unknown',
    };
  if (verifiedCover) return missing.length === 0 ? { judgement: 'pass' } : fail(missing);
  missing.push('no signature the receiver verified covers both List-Unsubscribe headers');
  // Only the signature is missing, and DKIM fails as a whole: one fix (sign, and list both headers in h=).
  const onlySignature = missing.length === 1 && dkim.judgement === 'fail';
  return { ...fail(missing), ...(onlySignature ? { rootCause: 'dkim-pass' as const } : {}) };
};

const fail = (missing: readonly string[]): ItemJudgement => ({
  judgement: 'fail',
  detail: missing.join('; '),
});

/** A link in the body whose address or visible text says unsubscribe (or opt out). */
const unsubscribeLink = ({ content }: CopyFacts): ItemJudgement => {
  if (content === undefined) return { judgement: 'unknown', detail: "the message's source was not fetched" };
  if (content.unsubscribeLink) return { judgement: 'pass' };
  return { judgement: 'fail', detail: 'no link in the body reads unsubscribe or opt out' };
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
  return wrong.length === 0 ? { judgement: 'pass' } : fail(wrong);
};

/** A From at a provider's domain passes only where the receiver verified that provider's own signature. */
const providerFrom = ({ headers, verified }: CopyFacts): ItemJudgement => {
  if (headers.fromDomain === undefined)
    return { judgement: 'unknown', detail: 'no single From address to read' };
  const owner = PROVIDER_DOMAINS[headers.fromDomain];
  if (owner === undefined) return { judgement: 'pass' };
  const signedByOwner = (verified?.dkim ?? []).some((domain) => PROVIDER_DOMAINS[domain] === owner);
  return signedByOwner
    ? { judgement: 'pass' }
    : { judgement: 'fail', detail: `From is at ${headers.fromDomain} but no signature of it was verified` };
};

const outOfReach = (id: RuleItemId): ItemJudgement | undefined => {
  const why = ITEM_TEXT[id].outOfReach;
  return why === undefined ? undefined : { judgement: 'unknown', detail: why, outOfReach: true };
};

export const judgeItems = (
  copy: CopyFacts,
  dns: DnsResults | undefined,
): Record<RuleItemId, ItemJudgement> => {
  const dkim = authItem(copy, 'dkim');
  const judged: Partial<Record<RuleItemId, ItemJudgement>> = {
    'spf-pass': authItem(copy, 'spf'),
    'dkim-pass': dkim,
    'dmarc-published': dmarcItem(copy, dns, (d) => d.dmarcPublished, 'no DMARC record for the From domain'),
    'dmarc-aligned': alignedItem(copy, dns, dkim),
    'one-click-unsubscribe': oneClick(copy, dkim),
    'unsubscribe-link': unsubscribeLink(copy),
    tls: tls(copy),
    fcrdns: dnsItem(dns, (d) => d.fcrdns, 'the sending IP has no PTR that resolves back to it'),
    rfc5322: rfc5322(copy),
    'no-provider-from': providerFrom(copy),
  };
  const all = {} as Record<RuleItemId, ItemJudgement>;
  for (const id of RULE_ITEMS)
    all[id] = outOfReach(id) ?? judged[id] ?? { judgement: 'unknown', detail: 'not judged' };
  return all;
};
