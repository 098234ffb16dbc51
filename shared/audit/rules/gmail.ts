// Owns Gmail's sender requirements (all senders, and those sending 5,000 or more a day to personal Gmail accounts,
// enforced from February 2024) as a checklist of shared items.
import type { RuleSet } from './ruleSet';

export const gmailRules: RuleSet = {
  name: 'Gmail',
  source:
    'Google, "Email sender guidelines" (support.google.com/mail/answer/81126) and its FAQ (support.google.com/a/answer/14229414)',
  providers: ['gmail'],
  items: [
    'spf-pass',
    'dkim-pass',
    'dmarc-published',
    'dmarc-aligned',
    'one-click-unsubscribe',
    'tls',
    'fcrdns',
    'rfc5322',
    'no-provider-from',
  ],
};
