// Owns running the sender audit on one check: the copy's facts read once (headers, and the source when fetched),
// every content check and bulk-sender rule set, the DNS side's results as given, then the verdict.
import { headerBlockOf } from '../scanner/headers';
import { CONTENT_CHECKS } from './content/contentChecks';
import { contentFactsOf } from './contentFacts';
import { headerFactsOf } from './headerFacts';
import { MAX_LINKS } from './htmlScan';
import { withReceiverVerdicts } from './receiverVerdicts';
import { judgeRuleSets } from './rules/ruleSets';
import { sendingHostOf } from './sendingHost';
import type { AuditInput, AuditReport, CopyFacts, Finding, NotChecked } from './types';
import { verdictOf } from './verdict';

/**
 * One copy's facts: `source` is the copy's source as fetched (capped by the fetch; contentFacts.ts caps it again),
 * or its header block alone when no source was fetched (then content is not judged). `auth` is the receiver's own
 * Authentication-Results as the scanner reads them for the account's trust, `verified` the domains it verified there.
 */
export const copyFactsOf = async (
  source: Buffer,
  {
    provider,
    auth,
    verified,
    headersOnly,
  }: Pick<CopyFacts, 'provider' | 'auth' | 'verified'> & { headersOnly: boolean },
): Promise<CopyFacts | undefined> => {
  const block = headerBlockOf(source.length > 1024 * 1024 ? source.subarray(0, 1024 * 1024) : source);
  if (block === undefined) return undefined;
  return {
    provider,
    sendingHost: sendingHostOf(block, provider),
    auth,
    verified,
    headers: headerFactsOf(block),
    content: headersOnly ? undefined : await contentFactsOf(source),
  };
};

const contentOutcome = (copy: CopyFacts): { findings: Finding[]; notChecked: NotChecked[] } => {
  const { content } = copy;
  if (content === undefined)
    return { findings: [], notChecked: [{ id: 'content', why: "the message's source was not fetched" }] };
  const notChecked: NotChecked[] = [];
  if (content.truncated)
    notChecked.push({
      id: 'content.truncated',
      why: 'the source is larger than the cap read: parts past it were not seen',
    });
  if (content.parseProblem) notChecked.push({ id: 'content.parse', why: content.parseProblem });
  if (content.linksOverCap > 0)
    notChecked.push({
      id: 'content.links-over-cap',
      why: `${content.linksOverCap} link(s) past the first ${MAX_LINKS} were counted, not read`,
    });
  return { findings: CONTENT_CHECKS.flatMap((check) => check.run(content)), notChecked };
};

/** What one copy's audit finds that does not depend on where the check's copies went: judged once, kept. */
export interface JudgedCopy {
  findings: Finding[];
  notChecked: NotChecked[];
  checklists: AuditReport['checklists'];
}

export const judgeCopy = ({ copy, dns }: Omit<AuditInput, 'placements'>): JudgedCopy => {
  const content = contentOutcome(copy);
  const rules = judgeRuleSets(copy, dns);
  const dnsNotChecked: NotChecked[] =
    dns === undefined
      ? [{ id: 'dns', why: 'DNS unknown: the DNS side was not consulted' }]
      : [...dns.notChecked];
  const hostNotChecked: NotChecked[] =
    copy.sendingHost === undefined
      ? [{ id: 'sending-host', why: "the receiver's own Received headers name no sending host" }]
      : [];
  const signaturesOver = copy.headers.dkimSignaturesOverCap ?? 0;
  if (signaturesOver > 0)
    hostNotChecked.push({
      id: 'headers.dkim-signatures',
      why: `${signaturesOver} DKIM-Signature field(s) past the first few were not read`,
    });
  // The DNS side's alignment is the rule item's own fact: once it fails there, it is one finding (or folded into
  // its root cause), never a second.
  const dnsFindings = (dns?.findings ?? []).filter(
    (f) => !(f.id === 'dns.dmarc-alignment' && rules.failedItems.has('dmarc-aligned')),
  );
  return {
    findings: withReceiverVerdicts([...content.findings, ...rules.findings, ...dnsFindings], copy),
    notChecked: [...hostNotChecked, ...content.notChecked, ...rules.notChecked, ...dnsNotChecked],
    checklists: rules.checklists,
  };
};

export const auditCopy = (input: AuditInput): AuditReport => {
  const { findings, notChecked, checklists } = judgeCopy(input);
  return verdictOf(findings, notChecked, checklists, input.placements);
};
