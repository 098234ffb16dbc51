// Owns the cost rows at 1, 500 and 5,000 mailboxes: the measured idle invocation and the measured 20-account check,
// scaled by what grows with the mailboxes (the shards' minute invocations, the credential items, a check's per-account
// DynamoDB units and its loop per shard) and priced from bench/prices.ts, so no figure is typed by hand.

import { DEFAULT_SETTINGS } from '../../infra/settings';
import { layoutFor } from '../../shared/scanner/scannerCapacity';
import { num } from './goalReading';
import { PRICES } from './prices';

const SCALE_MAILBOXES = [1, 500, 5000] as const;

/** A 30-day month, as the stack-cost section counts it. */
const HOURS_PER_MONTH = 24 * 30;

const shardsAt = (mailboxes: number) => layoutFor(mailboxes, DEFAULT_SETTINGS.scanShardSize).shards;
const dollars = (value: number) => `$${Number(value.toPrecision(3))}`;

/**
 * The idle month at `mailboxes`: the stack's fixed parts as measured, each shard's minute invocation costed as the
 * measured idle one (the schedule kicks every shard), and the credential items at the measured bytes per item.
 */
const idleMonthAt = (stackCost: unknown, mailboxes: number): number => {
  const fixed = ['dashboards', 'alarms', 'customMetrics', 'secrets'].reduce(
    (sum, part) => sum + num(stackCost, `idleMonthly.${part}`),
    0,
  );
  const perShard = num(stackCost, 'idleMonthly.scheduledInvocations') + num(stackCost, 'idleMonthly.logs');
  const perItem = num(stackCost, 'idleMonthly.credentialItems') / num(stackCost, 'credentials.accounts');
  return fixed + shardsAt(mailboxes) * perShard + mailboxes * perItem;
};

export const idleAtScaleLine = (stackCost: unknown): string =>
  SCALE_MAILBOXES.map(
    (n) =>
      `${n}: ${dollars(idleMonthAt(stackCost, n))} (${shardsAt(n)} shard${shardsAt(n) === 1 ? '' : 's'})`,
  ).join('; ');

/**
 * A check to every one of `mailboxes` seeds, from the measured check of `accountsPerCheck`: its DynamoDB units per
 * account times the seeds, the loop's time and invocation once per shard (each shard runs its own loop for the
 * check), and the API, API Gateway and audit once.
 */
const checkAt = (perCheck: unknown, accountsPerCheck: number, mailboxes: number): number => {
  const d = (part: string) => num(perCheck, `dollars.${part}`);
  const perAccount = (d('dynamoReads') + d('dynamoWrites')) / accountsPerCheck;
  return (
    perAccount * mailboxes +
    d('scannerLambda') * shardsAt(mailboxes) +
    d('apiLambda') +
    d('apiGateway') +
    d('audit')
  );
};

export const checkAtScaleLine = (perCheck: unknown, accountsPerCheck: number): string =>
  SCALE_MAILBOXES.map((n) => `${n}: ${dollars(checkAt(perCheck, accountsPerCheck, n))}`).join('; ');

/** One always-busy shard on Fargate with what it needs to reach the providers: a public IPv4 address. */
export const fargateWithIpv4 = (stackCost: unknown) => {
  const ipv4 = HOURS_PER_MONTH * PRICES.publicIpv4Hour;
  const task = num(stackCost, 'fargate.fargateTaskMonthly') + ipv4;
  return {
    ipv4,
    task,
    nat: HOURS_PER_MONTH * PRICES.natGatewayHour,
    breakEven: task / num(stackCost, 'fargate.lambdaBusyMonthly'),
  };
};
