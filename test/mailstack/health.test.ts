// Account health on the real mail stack: a mailbox with a wrong password leaves new checks after 3 failed sweeps
// in a row, and comes back by itself once its password is fixed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toMailboxCredentials } from '../../shared/adapters/credentials/mailboxCredentials';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import { createScanner } from '../../shared/composition/scanner';
import { createLogger } from '../../shared/log';
import type { MailboxCredentials } from '../../shared/scanner/scannerPorts';
import { OffsetClock } from '../support/clocks';
import { stackAccount } from '../support/mailStack';
import { FAST_TIMEOUTS } from '../support/scanHarness';
import { startTestService, type TestService } from '../support/testService';

let service: TestService & { clock: OffsetClock };
let key: string;
const credentials = new Map<string, MailboxCredentials>();
const healthy = toMailboxCredentials(stackAccount('inbox@mail.test'));

beforeAll(async () => {
  service = await startTestService(new OffsetClock());
  for (const email of ['inbox@mail.test', 'junk@mail.test']) {
    await service.deps.accounts.put({ email, provider: 'imap', scope: 'health', active: true });
    credentials.set(email, toMailboxCredentials(stackAccount(email)));
  }
  credentials.set('inbox@mail.test', {
    ...healthy,
    auth: { user: 'inbox@mail.test', pass: 'not-the-password' },
  });
  key = await service.issueKey('health');
});
afterAll(async () => service?.close());

const startedAccounts = async () => {
  const response = await service.request('POST', '/api/spam-check/start', { authorization: `Bearer ${key}` });
  return (response.body as { accounts: string[] }).accounts.map((address) =>
    address.replace(/\+tc_[a-z2-7]+@/, '@'),
  );
};

describe('account health', () => {
  it('takes an account out of new checks after 3 failed sweeps, and back after one that works', async () => {
    const registry = new DynamoAccountRegistry(service.client, service.table);
    const { scanner } = createScanner({
      client: service.client,
      tableName: service.table,
      credentials: { get: async (email) => credentials.get(email) },
      clock: service.clock,
      log: createLogger('test', 'error', () => undefined),
      timeouts: FAST_TIMEOUTS,
      unhealthyAfter: 3,
    });
    const health = async () =>
      (await registry.list()).find((account) => account.email === 'inbox@mail.test')?.health;

    expect(await startedAccounts()).toEqual(['inbox@mail.test', 'junk@mail.test']);
    for (let sweep = 1; sweep <= 3; sweep++) {
      expect((await health())?.unhealthySince).toBeUndefined();
      await scanner.sweepOnce();
      // Past the scanner's backoff (1, 2, 4 s), well inside the check's 5 minutes.
      service.clock.advance(5000);
    }
    expect(await health()).toMatchObject({ failures: 3, unhealthySince: expect.any(Number) });
    expect((await health())?.lastError).toMatch(/authentication failed/);
    expect(await startedAccounts()).toEqual(['junk@mail.test']);

    credentials.set('inbox@mail.test', healthy);
    // The next probe of unhealthy accounts (once a minute) logs in fine and brings the account back.
    service.clock.advance(61_000);
    await scanner.sweepOnce();
    expect(await health()).toEqual({ failures: 0, unhealthySince: undefined, lastError: undefined });
    expect(await startedAccounts()).toEqual(['inbox@mail.test', 'junk@mail.test']);
    await scanner.close();
  });
});
