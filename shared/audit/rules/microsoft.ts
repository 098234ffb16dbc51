// Owns Outlook.com's requirements for domains sending over 5,000 messages a day (enforced from May 2025): SPF, DKIM
// and DMARC at p=none or stronger aligned with one of them; a functional unsubscribe link and list hygiene are its
// recommended practices. It names no RFC 8058 one-click unsubscribe, so none is asked here (docs/audit.md).
import type { RuleSet } from './ruleSet';

export const microsoftRules: RuleSet = {
  name: 'Microsoft (Outlook.com)',
  source:
    'Microsoft Defender for Office 365 blog, "Strengthening Email Ecosystem: Outlook\'s New Requirements for High-Volume Senders"',
  providers: ['outlook'],
  items: ['spf-pass', 'dkim-pass', 'dmarc-published', 'dmarc-aligned', 'unsubscribe-link', 'list-hygiene'],
};
