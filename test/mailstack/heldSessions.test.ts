// Faults while the scanner holds its IMAP sessions open between sweeps (one per account, as npm start and the
// Lambda loop do): Dovecot itself stops and starts again, and a provider cuts one account's connection every 2 s.
// The sessions come back with backoff, mail that arrived during the gap is found, nothing is counted twice, and the
// account a server keeps cutting holds up no other.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pause } from '../../scripts/lib/poll';
import { DynamoAccountRegistry } from '../../shared/adapters/dynamo/DynamoAccountRegistry';
import type { AccountEntry } from '../../shared/local/localConfig';
import { mailStack, sendOnce, stackAccount } from '../support/mailStack';
import { pollUntilDone, type ScanHarness, startScanHarness } from '../support/scanHarness';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy';

const NAMES = ['inbox', 'junk', 'promo'];
const FLAKY = 'archive@mail.test';
let harness: ScanHarness;
let proxy: TcpProxy;
let key: string;
let flakyKey: string;
let dropping: ReturnType<typeof setInterval> | undefined;

const OTHERS = ['user001@mail.test', 'user002@mail.test'];

beforeAll(async () => {
  const held = NAMES.map((name) => ({ ...stackAccount(`${name}@mail.test`), scope: 'held' }));
  const archive = stackAccount(FLAKY);
  proxy = await startTcpProxy(archive.imap);
  const flaky: AccountEntry = { ...archive, scope: 'flaky', imap: { ...archive.imap, port: proxy.port } };
  const others = OTHERS.map((email) => ({ ...stackAccount(email), scope: 'flaky' }));
  harness = await startScanHarness([...held, flaky, ...others]);
  key = await harness.service.issueKey('held');
  flakyKey = await harness.service.issueKey('flaky');
  harness.startRunner();
});

afterAll(async () => {
  if (dropping) clearInterval(dropping);
  // Whatever happened, the stack the other suites share is left with Dovecot up.
  mailStack('dovecot-start');
  await harness?.close();
  await proxy?.close();
});

const start = async (apiKey: string) => {
  const response = await harness.service.request('POST', '/api/spam-check/start', {
    authorization: `Bearer ${apiKey}`,
  });
  expect(response.status).toBe(200);
  return response.body as { check_id: string; accounts: string[] };
};

/** The accounts recorded in a check, once each of `emails` has its event (GET can say complete a moment before). */
const recordedFor = async (checkId: string, emails: readonly string[]) =>
  (await harness.placedIn(checkId, emails))
    .filter((placement) => placement.outcome === 'recorded')
    .map((placement) => placement.email);

describe('IMAP sessions held open through server faults', () => {
  it('Dovecot restarted: sessions reconnect with backoff, mail delivered meanwhile is found once', async () => {
    const before = await start(key);
    await sendOnce(before.accounts, { subject: 'before the restart' });
    expect(await pollUntilDone(harness.service, key, before.check_id)).toMatchObject({ status: 'complete' });

    mailStack('dovecot-stop');
    const down = harness.logs.length;
    const during = await start(key);
    // Postfix takes it and defers it (LMTP refused) until Dovecot is back.
    await sendOnce(during.accounts, { subject: 'during the restart' });
    await pause(3000); // the outage's length: mail arrives while Dovecot is down
    mailStack('dovecot-start');

    const body = await pollUntilDone(harness.service, key, during.check_id, 60_000);
    expect(body).toMatchObject({ status: 'complete', received: 3, total: 3 });
    const names = NAMES.map((name) => `${name}@mail.test`);
    expect((await recordedFor(during.check_id, names)).sort()).toEqual([...names].sort());
    expect(await recordedFor(before.check_id, names)).toHaveLength(3);

    // Backoff: 3 s down at a 250 ms interval would be 12 failed sweeps per account without it; 1 s, 2 s, 4 s … allow 3.
    const failed = harness.logs.slice(down).filter((line) => line.message === 'account sweep failed');
    expect(failed.length).toBeGreaterThan(0);
    for (const name of NAMES) {
      expect(failed.filter((line) => line.account === `${name}@mail.test`).length).toBeLessThanOrEqual(4);
    }
    // Back to health: the failures the restart caused were cleared by the sweeps that worked. A sweep clears them
    // after writing its results, so GET may say complete a moment before; and the probe reads an index.
    const registry = new DynamoAccountRegistry(harness.service.client, harness.service.table);
    const ours = (failing: { email: string }[]) =>
      failing.filter(({ email }) => NAMES.includes(email.split('@')[0] ?? ''));
    await vi.waitFor(async () => expect(ours(await registry.listFailing())).toEqual([]), { timeout: 30_000 });
  }, 90_000);

  it('a server that cuts one account every 2 s holds up no other account', async () => {
    dropping = setInterval(() => proxy.dropAll(), 2000);
    const check = await start(flakyKey);
    // The check's sweeps open a session through the proxy; the message goes out only once one has been cut, so the
    // copies are read while the server keeps cutting (a check that completes before the first cut proves nothing).
    await vi.waitFor(() => expect(proxy.stats.dropped).toBeGreaterThan(0), {
      timeout: 15_000,
      interval: 100,
    });
    await sendOnce(check.accounts, { subject: 'through a flaky server' });
    const body = await pollUntilDone(harness.service, flakyKey, check.check_id, 60_000);
    clearInterval(dropping);
    dropping = undefined;
    expect(body).toMatchObject({ status: 'complete', received: 3, total: 3 });
    expect((await recordedFor(check.check_id, [FLAKY, ...OTHERS])).sort()).toEqual([FLAKY, ...OTHERS].sort());
    expect(proxy.stats.dropped).toBeGreaterThan(0);
    // The others were recorded as soon as their copies were read, whatever the cut account was doing.
    const others = (await harness.placedIn(check.check_id, OTHERS)).filter((placement) =>
      OTHERS.includes(placement.email),
    );
    expect(others.every((placement) => placement.outcome === 'recorded')).toBe(true);
  }, 90_000);
});
