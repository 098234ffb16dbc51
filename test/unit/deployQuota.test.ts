// `npm run deploy` stops before CloudFormation when what the account leaves unreserved (other functions' reservations
// taken out), plus what these stacks reserve today, cannot hold the new reservations and the 100 AWS keeps. What the
// synthesized stacks reserve is test/infra/deployQuota.test.ts.
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import {
  concurrencyShortfall,
  deployedReservationOf,
  UNRESERVED_MINIMUM,
} from '../../scripts/lib/deployChecks';

const accountOf = (quota: number | undefined, unreserved: number | undefined) => {
  const sent: string[] = [];
  const client = {
    send: async (command: object) => {
      sent.push(command.constructor.name);
      return { AccountLimit: { ConcurrentExecutions: quota, UnreservedConcurrentExecutions: unreserved } };
    },
  } as unknown as Pick<LambdaClient, 'send'>;
  return { client, sent };
};

describe('the concurrency quota check', () => {
  it('stops a new account at the usual quota of 10 with one line naming what to request', async () => {
    const { client, sent } = accountOf(10, 10);
    const line = await concurrencyShortfall(client, { reserved: 14, deployed: 0 }, 'eu-west-1');
    expect(sent).toEqual(['GetAccountSettingsCommand']);
    expect(line).toMatch(/in eu-west-1: quota 10, 10 unreserved .* reserve 14 .* request at least 114 /);
    expect(line).not.toContain('\n');
  });

  it("counts other functions' reservations: a quota that would do alone is not enough beside them", async () => {
    // 1,000 in all, 900 reserved by other stacks: 100 left, none of it for 95 more.
    const line = await concurrencyShortfall(accountOf(1000, 100).client, { reserved: 95, deployed: 0 }, 'r');
    expect(line).toMatch(/other functions reserve 900.* request at least 1095 /);
    expect(await concurrencyShortfall(accountOf(1000, 1000).client, { reserved: 95, deployed: 0 }, 'r')).toBe(
      undefined,
    );
  });

  it('gives back what the deployed stacks reserve today, so an update is not counted twice', async () => {
    // These stacks reserve 14 now (unreserved 186 of 200) and will reserve 95: 186 + 14 - 95 = 105 left.
    expect(
      await concurrencyShortfall(accountOf(200, 186).client, { reserved: 95, deployed: 14 }, 'r'),
    ).toBeUndefined();
    expect(
      await concurrencyShortfall(accountOf(200, 186).client, { reserved: 96 + 5, deployed: 14 }, 'r'),
    ).toMatch(/request at least 201 /);
    const exact = { reserved: 10, deployed: 0 };
    expect(await concurrencyShortfall(accountOf(200, 10 + UNRESERVED_MINIMUM).client, exact, 'r')).toBe(
      undefined,
    );
    expect(await concurrencyShortfall(accountOf(200, 9 + UNRESERVED_MINIMUM).client, exact, 'r')).toMatch(
      /201/,
    );
    expect(await concurrencyShortfall(accountOf(undefined, 5).client, exact, 'r')).toMatch(
      /no concurrency quota/,
    );
  });

  it('reads the deployed templates, a stack not deployed yet reserving nothing', async () => {
    const asked: string[] = [];
    const client = {
      send: async (command: { input: { StackName: string } }) => {
        asked.push(command.input.StackName);
        if (command.input.StackName === 'New') throw new Error('Stack with id New does not exist');
        if (command.input.StackName === 'Broken') throw new Error('Access denied');
        const fn = { Type: 'AWS::Lambda::Function', Properties: { ReservedConcurrentExecutions: 14 } };
        return { TemplateBody: JSON.stringify({ Resources: { Scanner: fn } }) };
      },
    } as unknown as Pick<CloudFormationClient, 'send'>;
    expect(await deployedReservationOf(client, ['Old', 'New'])).toBe(14);
    expect(asked).toEqual(['Old', 'New']);
    await expect(deployedReservationOf(client, ['Broken'])).rejects.toThrow(/Access denied/);
  });
});
