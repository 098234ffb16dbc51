// Owns Yahoo's sender requirements for bulk senders (from February 2024; AOL runs on Yahoo Mail), item for item as
// its Sender Hub page lists them (docs/audit.md, "Rule sets").
import type { RuleSet } from './ruleSet';

export const yahooRules: RuleSet = {
  name: 'Yahoo',
  source:
    'Yahoo, "Sender Best Practices" (senders.yahooinc.com/best-practices), requirements for bulk senders',
  providers: ['yahoo', 'aol'],
  items: [
    'spf-pass',
    'dkim-pass',
    'dmarc-published',
    'dmarc-aligned',
    'one-click-unsubscribe',
    'unsubscribe-link',
    'honor-unsubscribe',
    'spam-rate',
    'complaint-feedback',
    'fcrdns',
    'rfc5322',
  ],
};
