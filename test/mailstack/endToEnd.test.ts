// The whole product on the real loopback mail stack (Postfix, Dovecot with Sieve, SpamAssassin): start a check over
// HTTP, send ONE message through Postfix with every address in BCC, poll GET until the scanner has placed every copy.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/freePort';
import { pollUntil } from '../../scripts/lib/poll';
import type { AccountEntry } from '../../shared/local/localConfig';
import { GTUBE, sendOnce, stackAccount } from '../support/mailStack';
import { FAST_TIMEOUTS, pollUntilDone, type ScanHarness, startScanHarness } from '../support/scanHarness';

const MINUTE = 60_000;
let harness: ScanHarness;
let silentServer: Server;
const silentSessions: Socket[] = [];
let key: string;
let timeoutKey: string;
let faultKey: string;

const inScope = (account: AccountEntry, scope: string, patch: Partial<AccountEntry> = {}): AccountEntry => ({
  ...account,
  scope,
  ...patch,
});

beforeAll(async () => {
  // Accepts connections and never says a word: a server whose greeting never comes.
  silentServer = createServer((socket) => silentSessions.push(socket));
  silentServer.listen(0, '127.0.0.1');
  await once(silentServer, 'listening');
  const silentPort = (silentServer.address() as AddressInfo).port;

  const closedPort = await freePort();

  const fixed = ['inbox', 'junk', 'trash', 'promo', 'archive'].map((name) =>
    stackAccount(`${name}@mail.test`),
  );
  const user = (n: number) => stackAccount(`user00${n}@mail.test`);
  harness = await startScanHarness(
    [
      ...fixed.map((account) => inScope(account, 'default')),
      inScope(user(1), 'timeout'),
      inScope(user(2), 'timeout'),
      inScope(user(3), 'faults'),
      inScope(user(4), 'faults', { auth: { user: 'user004@mail.test', pass: 'wrong-password' } }),
      inScope(user(5), 'faults', { imap: { host: '127.0.0.1', port: closedPort, secure: false } }),
      inScope(user(6), 'faults', { imap: { host: '127.0.0.1', port: silentPort, secure: false } }),
    ],
    // The silent server's session must outlast the whole test (greeting and silence timeouts far beyond it), so
    // that "the healthy account was placed while it hung" holds however slow the machine is.
    { timeouts: { ...FAST_TIMEOUTS, greetingMs: 600_000, socketMs: 600_000 } },
  );
  key = await harness.service.issueKey('default');
  timeoutKey = await harness.service.issueKey('timeout');
  faultKey = await harness.service.issueKey('faults');
  harness.startRunner();
});

afterAll(async () => {
  for (const socket of silentSessions) socket.destroy();
  await harness?.close();
  silentServer?.close();
});

const start = async (apiKey: string) => {
  const response = await harness.service.request('POST', '/api/spam-check/start', {
    authorization: `Bearer ${apiKey}`,
  });
  expect(response.status).toBe(200);
  return response.body as { check_id: string; accounts: string[] };
};

describe('end to end on the real mail stack', () => {
  it('places one BCC message in inbox, Junk (SpamAssassin GTUBE), Trash, a category folder and a custom folder', async () => {
    const { check_id, accounts } = await start(key);
    await sendOnce(accounts, { subject: 'GTUBE end-to-end', text: `Test message.\n${GTUBE}\n` });
    const body = await pollUntilDone(harness.service, key, check_id);
    expect(body.status).toBe('complete');
    expect(body.received).toBe(body.total);
    expect(body.total).toBe(5);
    expect(Object.fromEntries(body.results.map((result) => [result.email, result.category]))).toEqual({
      'archive@mail.test': 'unknown',
      'inbox@mail.test': 'primary',
      'junk@mail.test': 'spam',
      'promo@mail.test': 'promotions',
      'trash@mail.test': 'trash',
    });
    for (const result of body.results) expect(result.email).toMatch(/^[a-z]+@mail\.test$/);
  });

  it('matches addresses in To as well as BCC, and a plain message lands in the inbox at the filtering account', async () => {
    const { check_id, accounts } = await start(key);
    await sendOnce(accounts, { to: true, text: 'No spam here.' });
    const body = await pollUntilDone(harness.service, key, check_id, 20_000);
    expect(body.status).toBe('complete');
    expect(body.results.find((result) => result.email === 'junk@mail.test')?.category).toBe('primary');
  });

  it('ends in timeout when one account never receives the message, that account still pending', async () => {
    const { check_id, accounts } = await start(timeoutKey);
    const [reached, missed] = accounts as [string, string];
    await sendOnce([reached]);
    const until = Date.now() + 30_000;
    let body = await pollUntilDone(harness.service, timeoutKey, check_id, 0);
    while (body.received < 1 && Date.now() < until)
      body = await pollUntilDone(harness.service, timeoutKey, check_id, 0);
    expect(body).toMatchObject({ status: 'pending', received: 1, total: 2 });

    harness.service.clock.advance(5 * MINUTE + 1000);
    body = await pollUntilDone(harness.service, timeoutKey, check_id, 0);
    expect(body.status).toBe('timeout');
    expect(
      body.results.find((result) => missed.startsWith(result.email.split('@')[0] ?? '?'))?.category,
    ).toBe('pending');

    // A late copy is not applied: timeout is final. The timed-out check is no longer active, so a fresh check of
    // the same accounts is what makes the scanner read that mailbox again; its own copy, sent after the late one,
    // says when the scanner has read past it. (By this test's clock, 5 minutes ahead of the mail server's, the late
    // copy arrived long before the scanner's listing, which no longer shows its check: it is left out before any
    // write. A late copy by agreeing clocks is refused by the store: test/adapters/dynamoLocal.test.ts.)
    const late = harness.placements.length;
    await sendOnce([missed]);
    const fresh = await harness.startQuietly('timeout');
    const freshMissed = fresh.accounts.find((address) => address.split('+')[0] === missed.split('+')[0]);
    await sendOnce([freshMissed as string]);
    const { scanner } = harness.newScanner();
    const lateUntil = Date.now() + 10_000;
    while (
      !harness.placements.slice(late).some((p) => p.checkId === fresh.check_id) &&
      Date.now() < lateUntil
    ) {
      await scanner.sweepOnce();
    }
    await scanner.close();
    expect(harness.placements.slice(late).some((p) => p.checkId === fresh.check_id)).toBe(true);
    expect(
      harness.placements.slice(late).filter((p) => p.checkId === check_id && p.outcome === 'recorded'),
    ).toEqual([]);
    body = await pollUntilDone(harness.service, timeoutKey, check_id, 0);
    expect(body).toMatchObject({ status: 'timeout', received: 1 });
    harness.service.clock.reset();
  });

  it('keeps other accounts on time when one has a wrong password, one a closed port and one never greets', async () => {
    const { check_id, accounts } = await start(faultKey);
    await sendOnce(accounts);
    const until = Date.now() + 30_000;
    let body = await pollUntilDone(harness.service, faultKey, check_id, 0);
    while (body.received < 1 && Date.now() < until)
      body = await pollUntilDone(harness.service, faultKey, check_id, 0);
    const healthy = (await harness.placedIn(check_id, ['user003@mail.test'])).find(
      (p) => p.email === 'user003@mail.test',
    );
    expect(healthy?.outcome).toBe('recorded');
    // The healthy account was placed while user006's session still hung on a server that never greets (its
    // timeouts are far beyond this test): nobody waited for it. imapFaults.test.ts shows that attempt ending at
    // the greeting timeout.
    const failures = (email: string) =>
      harness.logs.filter((l) => l.message === 'account sweep failed' && l.account === email);
    expect(silentSessions.length).toBeGreaterThanOrEqual(1);
    expect(silentSessions.some((socket) => !socket.destroyed)).toBe(true);
    expect(failures('user006@mail.test')).toEqual([]);
    await pollUntil(
      () => [failures('user004@mail.test')[0], failures('user005@mail.test')[0]],
      (both) => both.every(Boolean),
      { timeoutMs: 15_000 },
    );
    expect(failures('user004@mail.test')[0]?.error).toMatch(/auth|credential|fail/i);
    expect(failures('user005@mail.test')[0]?.error).toMatch(/ECONNREFUSED|refused/i);
    // Logged with the account, never with the password.
    expect(JSON.stringify(harness.logs)).not.toContain('wrong-password');
    expect(Object.fromEntries(body.results.map((result) => [result.email, result.category]))).toEqual({
      'user003@mail.test': 'primary',
      'user004@mail.test': 'pending',
      'user005@mail.test': 'pending',
      'user006@mail.test': 'pending',
    });
  });
});
