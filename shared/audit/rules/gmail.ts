// Owns Gmail's sender requirements for those sending 5,000 or more messages a day to personal Gmail accounts
// (enforced from February 2024), item for item as Google's page lists them (docs/audit.md, "Rule sets").
import type { RuleSet } from './ruleSet';

export const gmailRules: RuleSet = {
  name: 'Gmail',
  source:
    'Google, "Email sender guidelines" (support.google.com/mail/answer/81126), requirements for sending 5,000 or more messages per day',
  providers: ['gmail'],
  items: [
    'spf-pass',
    'dkim-pass',
    'tls',
    'fcrdns',
    'spam-rate',
    'rfc5322',
    'no-provider-from',
    'dmarc-published',
    'dmarc-aligned',
    // "Marketing messages and subscribed messages must support one-click unsubscribe, and include a clearly
    // visible unsubscribe link in the message body."
    'one-click-unsubscribe',
    'unsubscribe-link',
    'honor-unsubscribe',
  ],
};
