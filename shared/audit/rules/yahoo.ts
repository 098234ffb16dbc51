// Owns Yahoo's sender requirements (bulk senders from February 2024; AOL runs on Yahoo Mail) as a checklist.
import type { RuleSet } from './ruleSet';

export const yahooRules: RuleSet = {
  name: 'Yahoo',
  source: 'Yahoo, "Sender Best Practices" (senders.yahooinc.com/best-practices)',
  providers: ['yahoo', 'aol'],
  items: [
    'spf-pass',
    'dkim-pass',
    'dmarc-published',
    'dmarc-aligned',
    'one-click-unsubscribe',
    'fcrdns',
    'rfc5322',
    'no-provider-from',
  ],
};
