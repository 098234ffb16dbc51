// Owns the catalogue of bulk-sender rule items: each rule once, with what it is called, how much a failure weighs and
// the one-sentence fix. The rule sets (gmail.ts, yahoo.ts, microsoft.ts) name the items their pages ask for.
import type { Severity } from '../types';

interface ItemText {
  label: string;
  severity: Severity;
  fix: string;
  /** Why the service cannot judge it: data only the provider or the sender holds. Always unknown, never omitted. */
  outOfReach?: string;
}

const text = {
  'spf-pass': {
    label: 'SPF passes',
    severity: 'high',
    fix: "Add the sending host to the SPF record of the Return-Path's domain.",
  },
  'dkim-pass': {
    label: 'DKIM passes',
    severity: 'high',
    fix: 'Sign every message with DKIM (d= your From domain) and publish the selector key.',
  },
  'dmarc-published': {
    label: 'DMARC record published',
    severity: 'high',
    fix: 'Publish a DMARC record for the From domain (p=none at least, with rua= to get reports).',
  },
  'dmarc-aligned': {
    label: 'From aligned with a verified SPF or DKIM domain',
    severity: 'high',
    fix: 'Sign with d= of the From domain (or send with a Return-Path under it) so DMARC aligns.',
  },
  'one-click-unsubscribe': {
    label: 'One-click unsubscribe (RFC 8058) on marketing and subscribed mail',
    severity: 'medium',
    fix: 'Add List-Unsubscribe with an https URI and List-Unsubscribe-Post: List-Unsubscribe=One-Click, both in the DKIM h= list.',
  },
  'unsubscribe-link': {
    label: 'A visible unsubscribe link in the body',
    severity: 'medium',
    fix: 'Put a clearly visible unsubscribe link in the message body.',
  },
  'honor-unsubscribe': {
    label: 'Unsubscribe requests honoured within 2 days',
    severity: 'medium',
    fix: 'Process every unsubscribe request within 2 days.',
    outOfReach: 'whether unsubscribe requests are honoured shows only over time, in mail sent after them',
  },
  'spam-rate': {
    label: 'Spam rate reported by recipients below 0.3 %',
    severity: 'high',
    fix: 'Keep the user-reported spam rate under 0.1 % and never at 0.3 % or more: send only mail recipients asked for.',
    outOfReach:
      'the rate is what recipients report, seen only by the provider (Google Postmaster Tools, Yahoo Sender Hub): test seeds report nothing',
  },
  'complaint-feedback': {
    label: "Complaints from Yahoo's Complaint Feedback Loop acted on",
    severity: 'medium',
    fix: "Enrol in Yahoo's Complaint Feedback Loop and unsubscribe everyone who complains.",
    outOfReach:
      'enrolment and the complaints it sends are between the sender and Yahoo: no message shows them',
  },
  'list-hygiene': {
    label: 'Lists kept clean: bounces and invalid addresses removed',
    severity: 'medium',
    fix: 'Remove addresses that bounce or never engage, on a schedule.',
    outOfReach: "bounces and list upkeep show only in the sender's own records",
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
} as const satisfies Record<string, ItemText>;

export type RuleItemId = keyof typeof text;
export const ITEM_TEXT: Readonly<Record<RuleItemId, ItemText>> = text;
/** Every item, in the catalogue's order: derived, never listed a second time. */
export const RULE_ITEMS = Object.keys(text) as RuleItemId[];
