// Owns the cost goals in BENCHMARKS.md: a check's variable cost at list prices, received or run to its timeout,
// and the IMAP commands a waiting account costs.
import { BENCH, costArithmetic, type Goal, get, num } from './goalReading';
import { checkAtScaleLine, fargateWithIpv4, idleAtScaleLine } from './scaleCost';

/** The sealing key's month, from a run that priced it (runs before KMS had no key to price). */
const sealingKeyPart = (r: unknown): string =>
  get(r, 'idleMonthly.sealingKey') === undefined
    ? ''
    : ` + sealing key $${num(r, 'idleMonthly.sealingKey')} (${num(r, 'template.sealingKeys')}, first year)`;

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
    goal: 'Variable cost at list prices of a check where one account never receives and the check runs to the 5-minute timeout (20 accounts), the scanner holding it for its patience window and the schedule sweeping it after: ≤ $0.0006',
    command: `${BENCH} waiting`,
    read: (r) => ({
      measured: `${costArithmetic(get(r, 'cost.perCheck'), get(r, 'cost.prices'))} (${num(r, 'cost.checks')} check(s) of ${num(r, 'cost.accountsPerCheck')} accounts; ${num(r, 'cost.perCheck.dynamoOperations.writes.PutItem.calls')} PutItem, the lease's among them)`,
      pass: num(r, 'cost.perCheck.totalDollars') <= 0.0006 && num(r, 'cost.accountsPerCheck') >= 20,
    }),
  },
  {
    section: 'waiting',
    goal: "A copy landing after the scanner's patience window is shown within the schedule's minute plus 10 s (found by the scheduled sweep, not a watch)",
    command: `${BENCH} waiting`,
    read: (r) => ({
      measured: `p50 ${num(r, 'late.p50Ms')} ms, max ${num(r, 'late.maxMs')} ms over ${num(r, 'late.samples')} copies delivered a random part of the schedule's ${num(r, 'late.scheduleMs') / 1000} s after the window (patience ${num(r, 'late.patienceMs') / 1000} s)`,
      pass: num(r, 'late.samples') > 0 && num(r, 'late.maxMs') <= num(r, 'late.scheduleMs') + 10_000,
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
  {
    section: 'concurrentCost',
    goal: 'Variable cost at list prices per check at 1, 10 and 100 concurrent checks of 20 accounts, every account receiving, the scanner loop shared: each ≤ $0.0001',
    command: `${BENCH} concurrent-cost`,
    read: (r) => {
      const levels = (get(r, 'levels') as { concurrent: number; perCheck: unknown }[] | undefined) ?? [];
      const at = (level: { perCheck: unknown }, path: string) => num(level.perCheck, path);
      return {
        measured: levels
          .map(
            (level) =>
              `${level.concurrent}: $${at(level, 'totalDollars')} (scanner ${at(level, 'scannerLoopMs')} ms at ${at(level, 'scannerMemoryMb')} MB, ${at(level, 'dynamoWriteUnits')} WRU, ${at(level, 'dynamoReadUnits')} RRU, ${at(level, 'apiCalls')} API calls)`,
          )
          .join('; '),
        pass:
          [1, 10, 100].every((n) => levels.some((level) => level.concurrent === n)) &&
          levels.every((level) => at(level, 'totalDollars') <= 0.0001),
      };
    },
  },
  {
    section: 'stackCost',
    goal: "Idle cost of a deployed stack a month at list prices (dashboard, alarms, custom metrics, secrets, the schedule's invocations, their logs, 5,000 OAuth accounts' credential items) ≤ $10",
    command: `${BENCH} stack-cost`,
    read: (r) => {
      const m = (name: string) => `$${num(r, `idleMonthly.${name}`)}`;
      const idle = (path: string) => num(r, `idleInvocation.${path}`);
      return {
        measured:
          `$${num(r, 'idleMonthlyTotal')} = dashboards ${m('dashboards')} + alarms ${m('alarms')} (${num(r, 'template.alarmMetrics')} alarm metrics)` +
          ` + custom metrics ${m('customMetrics')} (${(get(r, 'idleInvocation.metrics') as string[] | undefined)?.join(', ') ?? 'n/a'})` +
          ` + secrets ${m('secrets')} (${num(r, 'template.secrets')})${sealingKeyPart(r)} + schedule ${m('scheduledInvocations')} (${idle('perMonth')} × ${idle('medianMs')} ms, ${idle('readUnits')} RRU, ${idle('writeUnits')} WRU, ${idle('secretReads')} secret reads)` +
          ` + logs ${m('logs')} (${Math.round(idle('logBytes'))} bytes an invocation) + credential items ${m('credentialItems')}; list prices as of ${String(get(r, 'prices.asOf')).slice(0, 10)}`,
        pass: num(r, 'idleMonthlyTotal') <= 10,
      };
    },
  },
  {
    section: 'stackCost',
    goal: 'Credentials of 5,000 OAuth accounts: sealed items in the table against Secrets Manager, a month (reported)',
    command: `${BENCH} stack-cost`,
    read: (r) => ({
      measured:
        `items ${(num(r, 'credentials.itemBytes') / 2 ** 20).toFixed(1)} MB, ${`$${num(r, 'idleMonthly.credentialItems')}`} with PITR; ` +
        `one secret per account $${num(r, 'credentials.perAccountSecretsMonthly')}; packed 64 KB a secret $${num(r, 'credentials.packedSecretsMonthly')} ` +
        `(the accounts as one document: ${(num(r, 'credentials.documentBytes') / 2 ** 20).toFixed(1)} MB)`,
      pass: undefined,
    }),
  },
  {
    section: 'stackCost',
    goal: "Scanner memory: one shard's peak RSS, sweeping a shard of accounts with its IDLE watches open, ≤ 2/3 of the scanner's memory setting",
    command: `${BENCH} stack-cost`,
    read: (r) => ({
      measured: `peak RSS ${num(r, 'memory.peakRssMb')} MB (heap ${num(r, 'memory.peakHeapUsedMb')} MB) over ${num(r, 'memory.accounts')} accounts, ${num(r, 'memory.failed')} failed sweeps; scannerMemoryMb ${num(r, 'memory.scannerMemoryMb')}`,
      pass:
        num(r, 'memory.peakRssMb') <= (num(r, 'memory.scannerMemoryMb') * 2) / 3 &&
        num(r, 'memory.failed') === 0 &&
        num(r, 'memory.accounts') >= 100,
    }),
  },
  {
    section: 'stackCost',
    goal: "One always-busy shard a month, its loop running all month: on Lambda against an arm Fargate task with the public IPv4 address it needs to reach the providers (or a NAT gateway), from the same price table; Fargate is cheaper once a shard's loop runs more than this share of the month (reported)",
    command: `${BENCH} stack-cost`,
    read: (r) => {
      const fargate = fargateWithIpv4(r);
      return {
        measured: `${Math.round(fargate.breakEven * 100)} %: a shard busy all month $${num(r, 'fargate.lambdaBusyMonthly')} on Lambda (${num(r, 'fargate.scannerMemoryMb')} MB every second, and ${num(r, 'fargate.handOversPerMonth')} hand-overs at its ${num(r, 'fargate.scannerTimeoutS')} s timeout) vs $${Number(fargate.task.toPrecision(3))} for an arm task of 0.25 vCPU and ${num(r, 'fargate.fargateGb')} GB ($${num(r, 'fargate.fargateTaskMonthly')}) with its public IPv4 address ($${Number(fargate.ipv4.toPrecision(3))}; a NAT gateway instead $${Number(fargate.nat.toPrecision(3))} before data)`,
        pass: undefined,
      };
    },
  },
  {
    section: 'stackCost',
    goal: "Idle month at 1, 500 and 5,000 mailboxes at list prices: the measured idle stack, each shard's minute invocation as the measured idle one, the credential items per account, the sealing key; no per-mailbox metric (reported)",
    command: `${BENCH} stack-cost`,
    read: (r) => ({ measured: idleAtScaleLine(r), pass: undefined }),
  },
  {
    section: 'detection',
    goal: 'Variable cost of a check to every seed at 1, 500 and 5,000 mailboxes at list prices, from the measured check: its DynamoDB units per account × the seeds, its loop once per shard, the API and audit once, its KMS requests at most (reported)',
    command: `${BENCH} detection`,
    read: (r) => ({
      measured: checkAtScaleLine(get(r, 'cost.perCheck'), num(r, 'cost.accountsPerCheck')),
      pass: undefined,
    }),
  },
  {
    section: 'monitorCost',
    goal: "A monitor's monthly cost at list prices with 20 seeds, every 1 h and every 6 h (the check's measured variable cost, the run's own reads, writes and Lambda, its KMS requests at most, its custom metrics), and the runs its alarm needs before it can fire (reported)",
    command: `${BENCH} monitor-cost`,
    read: (r) => ({ measured: monitorCostText(r), pass: undefined }),
  },
];

interface MonitorMonth {
  everyHours: number;
  totalDollars: number;
  metrics: number;
  alarmMetrics: number;
  metricsDollars: number;
  runsPerMonth: number;
  perRunDollars: number;
}

/** A run's KMS requests, from a run that counted them (runs before KMS had none to count). */
const kmsPart = (r: unknown): string => {
  const requests = get(r, 'fiveProviders.0.kmsRequests');
  return typeof requests === 'number'
    ? ` and at most ${requests} KMS requests (its message, its check's seeds' items opened and re-sealed)`
    : '';
};

const monitorCostText = (r: unknown): string => {
  const months = (path: string) =>
    ((get(r, path) as MonitorMonth[] | undefined) ?? [])
      .map(
        (m) =>
          `every ${m.everyHours} h $${m.totalDollars} (${m.runsPerMonth} runs × $${m.perRunDollars} + ${m.metrics} metrics and ${m.alarmMetrics} alarm metric${m.alarmMetrics === 1 ? '' : 's'} $${m.metricsDollars})`,
      )
      .join(', ');
  const alarm = (path: string) =>
    `${num(r, `${path}.seedsPerProvider`)} seeds a provider: ${num(r, `${path}.drop`)} runs for a drop against the baseline, ${num(r, `${path}.window`)} for the control's test`;
  return (
    `20 seeds over 5 providers: ${months('fiveProviders')}; all at one provider: ${months('oneProvider')}; ` +
    `a 1 MB message every 1 h over 5 providers $${num(r, 'largestMessage.totalDollars')}. Alarm: ${alarm('alarm.fiveProviders')}; ${alarm('alarm.oneProvider')}. ` +
    `Check cost $${num(r, 'input.checkDollars')} as the detection section measured it (${String(get(r, 'input.checkMeasured'))}); the run's own part computed from the code's reads and writes${kmsPart(r)}, not metered; the alarm is one CloudWatch alarm (MonitorDrop, a Metrics Insights query over every monitor and provider, billed per series it reads); the schedule on AWS (a tick every ${num(r, 'schedule.everyMinutes')} min, its heartbeat metric, errors and heartbeat alarms) $${num(r, 'schedule.totalDollars')} a month per deployment whatever its monitors; list prices as of ${String(get(r, 'prices.asOf')).slice(0, 10)}`
  );
};
