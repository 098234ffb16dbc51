// Owns the webhook goals in BENCHMARKS.md: from a check completing to its signed delivery at a loopback receiver, and
// the requests a client makes per check, polling against webhook.
import { BENCH, type Goal, ms, num } from './goalReading';

export const WEBHOOK_GOALS: Goal[] = [
  {
    section: 'webhooks',
    goal: 'Webhook under npm start: from the check completing (its last result recorded) to a loopback receiver holding the signed delivery, p95 ≤ 200 ms; every delivery verifies, none missing or doubled',
    command: `${BENCH} webhooks`,
    read: (r) => ({
      measured: `p95 ${ms(num(r, 'completeToDelivery.p95Ms'))}, p50 ${ms(num(r, 'completeToDelivery.p50Ms'))}, max ${ms(num(r, 'completeToDelivery.maxMs'))} over ${num(r, 'checks')} checks of ${num(r, 'accounts')} accounts; ${num(r, 'verified')} verified, ${num(r, 'missing')} missing, ${num(r, 'duplicates')} duplicates`,
      pass:
        num(r, 'completeToDelivery.p95Ms') <= 200 &&
        num(r, 'verified') === num(r, 'checks') &&
        num(r, 'missing') === 0 &&
        num(r, 'duplicates') === 0,
    }),
  },
  {
    section: 'webhooks',
    goal: "Requests a client makes per check: polling GET at the spec's default interval vs a webhook (reported)",
    command: `${BENCH} webhooks`,
    read: (r) => ({
      measured: `polling every ${ms(num(r, 'pollIntervalMs'))}: ${num(r, 'requestsPerCheck.polling')} requests a check, the result seen p95 ${ms(num(r, 'completeToPollSeen.p95Ms'))} after completion; webhook: ${num(r, 'requestsPerCheck.webhook')}, delivered p95 ${ms(num(r, 'completeToDelivery.p95Ms'))} after`,
      pass: undefined,
    }),
  },
];
