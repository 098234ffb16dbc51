// The cost rows at 1, 500 and 5,000 mailboxes carry KMS: the sealing key's month in the idle month (an idle scanner
// opens no item), and in a check the requests a cold data-key cache makes at most, priced from the one price table.
import { describe, expect, it } from 'vitest';
import { COST_GOALS } from '../../scripts/lib/costGoals';
import { PRICES } from '../../scripts/lib/prices';
import { checkAtScaleLine, idleAtScaleLine, kmsRequestsPerCheck } from '../../scripts/lib/scaleCost';

const dollars = (value: number) => `$${Number(value.toPrecision(3))}`;
/** A measured stack that costs nothing, so what remains is what the rows add. */
const freeStack = {
  idleMonthly: { dashboards: 0, alarms: 0, customMetrics: 0, secrets: 0, scheduledInvocations: 0, logs: 0 },
  credentials: { accounts: 5000 },
};
const freeCheck = {
  dollars: { dynamoReads: 0, dynamoWrites: 0, scannerLambda: 0, apiLambda: 0, apiGateway: 0, audit: 0 },
};

describe('KMS in the cost rows', () => {
  it('counts a Decrypt per seed and for the webhook secrets, a GenerateDataKey per re-sealed seed', () => {
    expect(kmsRequestsPerCheck(1)).toEqual({ decrypt: 2, generateDataKey: 1 });
    expect(kmsRequestsPerCheck(5000)).toEqual({ decrypt: 5001, generateDataKey: 5000 });
  });

  it('prices a check’s KMS requests at every scale', () => {
    const line = checkAtScaleLine(freeCheck, 20);
    for (const n of [1, 500, 5000]) {
      const kms = dollars((2 * n + 1) * PRICES.kmsRequest);
      expect(line).toContain(`${n}: ${kms} (${2 * n + 1} KMS requests ${kms})`);
    }
    expect(line).toContain('every data-key cache cold');
  });

  it('adds the sealing key’s month to the idle month, whatever the mailboxes', () => {
    const key = dollars(PRICES.kmsKeyMonth);
    const line = idleAtScaleLine({
      ...freeStack,
      idleMonthly: { ...freeStack.idleMonthly, credentialItems: 0 },
    });
    expect(line).toContain(`1: ${key} (1 shard)`);
    expect(line).toContain(`5000: ${key} (31 shards)`);
    expect(line).toContain(`each with the sealing key's ${key} a month`);
  });

  it('shows the sealing key in the measured idle stack once a run priced it', () => {
    const goal = COST_GOALS.find((row) => row.goal.startsWith('Idle cost of a deployed stack'));
    const measured = (idleMonthly: Record<string, number>) =>
      goal?.read({ ...freeStack, idleMonthly, template: { sealingKeys: 1 } }).measured ?? '';
    expect(measured({ ...freeStack.idleMonthly, sealingKey: 1 })).toContain(
      '+ sealing key $1 (1, first year)',
    );
    expect(measured(freeStack.idleMonthly)).not.toContain('sealing key');
  });
});
