// `npm run deploy` stops before CloudFormation when the account's Lambda concurrency quota cannot hold what the
// stacks reserve plus the 100 AWS keeps unreserved, with one line saying what to request. What the synthesized stacks
// reserve is test/infra/deployQuota.test.ts.
import type { LambdaClient } from '@aws-sdk/client-lambda';
import { describe, expect, it } from 'vitest';
import { concurrencyShortfall, UNRESERVED_MINIMUM } from '../../scripts/lib/deployChecks';

const quotaOf = (concurrentExecutions: number | undefined) => {
  const sent: string[] = [];
  const client = {
    send: async (command: object) => {
      sent.push(command.constructor.name);
      return { AccountLimit: { ConcurrentExecutions: concurrentExecutions } };
    },
  } as unknown as Pick<LambdaClient, 'send'>;
  return { client, sent };
};

describe('the concurrency quota check', () => {
  it('stops a new account at the usual quota of 10 with one line naming what to request', async () => {
    const { client, sent } = quotaOf(10);
    const line = await concurrencyShortfall(client, 10, 'eu-west-1');
    expect(sent).toEqual(['GetAccountSettingsCommand']);
    expect(line).toMatch(/quota in eu-west-1 is 10; these stacks reserve 10 .* request at least 110 /);
    expect(line).not.toContain('\n');
  });

  it('lets the deploy go on when the quota holds the reservation and the unreserved minimum', async () => {
    expect(await concurrencyShortfall(quotaOf(1000).client, 10, 'eu-west-1')).toBeUndefined();
    expect(await concurrencyShortfall(quotaOf(10 + UNRESERVED_MINIMUM).client, 10, 'r')).toBeUndefined();
    expect(await concurrencyShortfall(quotaOf(10 + UNRESERVED_MINIMUM - 1).client, 10, 'r')).toMatch(/110/);
    expect(await concurrencyShortfall(quotaOf(undefined).client, 10, 'r')).toMatch(/no concurrency quota/);
  });
});
