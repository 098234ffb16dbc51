// Owns the goals BENCHMARKS.md holds the scanner to on a realistic wire: TLS to Dovecot's IMAPS through the delay
// proxy (a provider's round trip away), each figure beside the same run's loopback-plain one.
import { BENCH, type Goal, ms, num, str } from './goalReading';

/** The headroom detection may take over Dovecot's own announcement, on top of one round trip. */
const FLOOR_FACTOR = 1.15;

const wireOf = (r: Record<string, unknown>) => `${str(r, 'tlsDelay.wire')}`;

export const WIRE_GOALS: Goal[] = [
  {
    section: 'detection',
    goal: "Over TLS a provider's round trip away: detection p95 (LMTP delivery's return to GET showing the account) ≤ 1.15 × the same run's Dovecot announcement p95 (an IDLE client over the same proxy and TLS) + one round trip",
    command: `${BENCH} detection`,
    read: (r) => {
      const p95 = num(r, 'tlsDelay.lmtpToGet.p95Ms');
      const floor = num(r, 'tlsDelay.lmtpToAnnouncement.p95Ms');
      const bound = FLOOR_FACTOR * floor + num(r, 'tlsDelay.rttMs');
      return {
        measured: `${wireOf(r)}: p50 ${ms(num(r, 'tlsDelay.lmtpToGet.p50Ms'))}, p95 ${ms(p95)} against ${ms(bound)} (announcement p95 ${ms(floor)} over ${num(r, 'tlsDelay.lmtpToAnnouncement.samples')} deliveries), SMTP send to complete p95 ${ms(num(r, 'tlsDelay.smtpSendToComplete.p95Ms'))}, ${num(r, 'tlsDelay.checks')} checks; loopback plain, same run: p95 ${ms(num(r, 'lmtpToGet.p95Ms'))} (announcement p95 ${ms(num(r, 'lmtpToAnnouncement.p95Ms'))}), SMTP send to complete p95 ${ms(num(r, 'smtpSendToComplete.p95Ms'))}`,
        pass: p95 <= bound && num(r, 'tlsDelay.checks') >= 50,
      };
    },
  },
  {
    section: 'scale',
    goal: "Over TLS a provider's round trip away: a loop's first sweep of 200 accounts (every login, the listing of 1,000 checks, first sight) ≤ 3 s",
    command: `${BENCH} scale`,
    read: (r) => ({
      measured: `${wireOf(r)}: ${ms(num(r, 'tlsDelay.firstSweep.ms'))} (the listing's tick ${ms(num(r, 'tlsDelay.firstSweep.listActiveMs'))}, logins beside it; an account's sweep median ${ms(num(r, 'tlsDelay.firstSweep.accountSweepMedianMs'))}, max ${ms(num(r, 'tlsDelay.firstSweep.accountSweepMaxMs'))}), ${num(r, 'tlsDelay.firstSweep.failed')} failed, ${num(r, 'tlsDelay.accounts')} accounts; loopback plain, same run: ${ms(num(r, 'firstSweep.ms'))}`,
      pass:
        num(r, 'tlsDelay.firstSweep.ms') <= 3000 &&
        num(r, 'tlsDelay.accounts') >= 200 &&
        num(r, 'tlsDelay.activeChecks') >= 1000 &&
        num(r, 'tlsDelay.firstSweep.failed') === 0,
    }),
  },
  {
    section: 'waiting',
    goal: "Over TLS a provider's round trip away: IMAP commands per waiting account-minute ≤ 3 (counted by Dovecot, after login)",
    command: `${BENCH} waiting`,
    read: (r) => ({
      measured: `${wireOf(r)}: ${num(r, 'tlsDelay.commands.dovecotPerMinute')} a minute (${num(r, 'tlsDelay.commands.dovecotCommands')} commands); loopback plain, same run: ${num(r, 'commands.dovecotPerMinute')} by Dovecot, ${num(r, 'commands.perMinute')} at the counting proxy (logins included)`,
      pass:
        num(r, 'tlsDelay.commands.dovecotPerMinute') <= 3 && num(r, 'tlsDelay.commands.dovecotCommands') >= 0,
    }),
  },
  {
    section: 'sweepCost',
    goal: "Over TLS a provider's round trip away: a sweep of the mailbox with 10,000 old messages ≤ 1.2 × the one with a single old message, in commands and in time",
    command: `${BENCH} sweep-cost`,
    read: (r) => {
      const phases = ['firstSight', 'idle', 'newMessage']
        .map(
          (phase) =>
            `${phase} ${num(r, `tlsDelay.phases.${phase}.fullMedianMs`)}/${num(r, `tlsDelay.phases.${phase}.baselineMedianMs`)} ms (plain ${num(r, `phases.${phase}.fullMedianMs`)}/${num(r, `phases.${phase}.baselineMedianMs`)})`,
        )
        .join(', ');
      return {
        measured: `${wireOf(r)}: commands ${num(r, 'tlsDelay.worstCommandRatio')} ×, time ${num(r, 'tlsDelay.worstTimeRatio')} × (${phases}); loopback plain, same run: ${num(r, 'worstCommandRatio')} ×, ${num(r, 'worstTimeRatio')} ×`,
        pass: num(r, 'tlsDelay.worstCommandRatio') <= 1.2 && num(r, 'tlsDelay.worstTimeRatio') <= 1.2,
      };
    },
  },
];
