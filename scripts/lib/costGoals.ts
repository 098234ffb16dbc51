// Owns the cost goals in BENCHMARKS.md: a check's variable cost at list prices, received or run to its timeout,
// and the IMAP commands a waiting account costs.
import { BENCH, costArithmetic, type Goal, get, num } from './goalReading';

export const COST_GOALS: Goal[] = [
  {
    section: 'detection',
    goal: 'Variable cost at list prices of a check where every account receives (20 accounts) ≤ $0.0001',
    command: `${BENCH} detection`,
    read: (r) => ({
      measured: `${costArithmetic(get(r, 'cost.perCheck'), get(r, 'cost.prices'))} (${num(r, 'cost.checks')} checks of ${num(r, 'cost.accountsPerCheck')} accounts)`,
      pass: num(r, 'cost.perCheck.totalDollars') <= 0.0001 && num(r, 'cost.accountsPerCheck') >= 20,
    }),
  },
  {
    section: 'waiting',
    goal: 'Variable cost at list prices of a check where one account never receives and the check runs to the 5-minute timeout (20 accounts) ≤ $0.0001',
    command: `${BENCH} waiting`,
    read: (r) => ({
      measured: `${costArithmetic(get(r, 'cost.perCheck'), get(r, 'cost.prices'))} (${num(r, 'cost.checks')} check(s) of ${num(r, 'cost.accountsPerCheck')} accounts)`,
      pass: num(r, 'cost.perCheck.totalDollars') <= 0.0001 && num(r, 'cost.accountsPerCheck') >= 20,
    }),
  },
  {
    section: 'waiting',
    goal: 'IMAP commands per waiting account-minute ≤ 6, logins included (counted by a proxy in front of the IMAP port, over ≥ 60 s)',
    command: `${BENCH} waiting`,
    read: (r) => {
      const byName = Object.entries((get(r, 'commands.byName') as Record<string, number>) ?? {})
        .map(([name, count]) => `${count} ${name}`)
        .join(', ');
      return {
        measured: `${num(r, 'commands.perMinute')} a minute: ${num(r, 'commands.commands')} commands (${byName}) in ${num(r, 'commands.windowSeconds')} s while ${String(get(r, 'commands.account'))} waited`,
        pass: num(r, 'commands.perMinute') <= 6 && num(r, 'commands.windowSeconds') >= 60,
      };
    },
  },
];
