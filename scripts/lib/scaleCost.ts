// Owns the cost rows at 1, 500 and 5,000 mailboxes: the measured idle invocation and the measured 20-account check,
// scaled by what grows with the mailboxes (the shards' minute invocations, the credential items, a check's per-account
// DynamoDB units, its loop per shard and its KMS requests) and priced from bench/prices.ts, with the sealing key's
// month, so no figure is typed by hand.

import { DEFAULT_SETTINGS } from '../../infra/settings';
import { layoutFor } from '../../shared/scanner/scannerCapacity';
import { num } from './goalReading';
import { PRICES } from './prices';

const SCALE_MAILBOXES = [1, 500, 5000] as const;

/** A 30-day month, as the stack-cost section counts it. */
const HOURS_PER_MONTH = 24 * 30;

const shardsAt = (mailboxes: number) => layoutFor(mailboxes, DEFAULT_SETTINGS.scanShardSize).shards;
const dollars = (value: number) => `$${Number(value.toPrecision(3))}`;

/** The data stack's one customer-managed sealing key (test/infra/sealingKey.test.ts), priced for its first year. */
const SEALING_KEYS = 1;

/**
 * KMS requests of a check to `mailboxes` seeds at most, every data-key cache cold (the check comes more than the
 * cache's 5 minutes after the last one, or on a scanner's cold start; shared/adapters/keys/EnvelopeSealer.ts): each
 * seed's credential item opened once (Decrypt), each seed's item re-sealed once as if every seed were OAuth and its
 * refresh token rotated (GenerateDataKey; a rotation comes with a token refresh, about hourly at most), and the API
 * key's webhook secrets opened once (Decrypt). An idle scanner opens no item, so the idle month has the key alone.
 */
export const kmsRequestsPerCheck = (mailboxes: number) => ({
  decrypt: mailboxes + 1,
  generateDataKey: mailboxes,
});

const kmsCheckDollars = (mailboxes: number): number => {
  const { decrypt, generateDataKey } = kmsRequestsPerCheck(mailboxes);
  return (decrypt + generateDataKey) * PRICES.kmsRequest;
};

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
  return fixed + SEALING_KEYS * PRICES.kmsKeyMonth + shardsAt(mailboxes) * perShard + mailboxes * perItem;
};

export const idleAtScaleLine = (stackCost: unknown): string =>
  `${SCALE_MAILBOXES.map(
    (n) =>
      `${n}: ${dollars(idleMonthAt(stackCost, n))} (${shardsAt(n)} shard${shardsAt(n) === 1 ? '' : 's'})`,
  ).join(
    '; ',
  )}; each with the sealing key's ${dollars(SEALING_KEYS * PRICES.kmsKeyMonth)} a month (its first year; ` +
  `${dollars(PRICES.kmsRotatedKeyMonth)} more for each yearly rotation's backing key)`;

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
    d('audit') +
    kmsCheckDollars(mailboxes)
  );
};

export const checkAtScaleLine = (perCheck: unknown, accountsPerCheck: number): string => {
  const requests = (n: number) => {
    const { decrypt, generateDataKey } = kmsRequestsPerCheck(n);
    return decrypt + generateDataKey;
  };
  return `${SCALE_MAILBOXES.map(
    (n) =>
      `${n}: ${dollars(checkAt(perCheck, accountsPerCheck, n))} (${requests(n)} KMS requests ${dollars(kmsCheckDollars(n))})`,
  ).join(
    '; ',
  )}; KMS at most: every data-key cache cold, every seed an OAuth account whose refresh token rotated`;
};

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
