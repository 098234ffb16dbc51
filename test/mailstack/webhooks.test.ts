// Webhooks end to end on the real loopback mail stack: a check that completes and one that times out with no mail
// at all each bring the receiver exactly one signed delivery, verified with the standardwebhooks verifier, with the
// spec's GET body plus report_url, and the report lists the attempt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_TIMEOUTS } from '../../scripts/lib/loopbackTimeouts';
import { StaticCredentialSource } from '../../scripts/lib/StaticCredentialSource';
import { indexCredentials } from '../../shared/adapters/credentials/mailboxCredentials';
import { DynamoWebhookStore } from '../../shared/adapters/dynamo/DynamoWebhookStore';
import { createScanner } from '../../shared/composition/scanner';
import { buildDeliverDeps } from '../../shared/composition/webhookDeps';
import { hashApiKey, keyIdOf } from '../../shared/domain/apiKey';
import { LocalScanRunner } from '../../shared/local/LocalScanRunner';
import { LocalWebhookSender } from '../../shared/local/LocalWebhookSender';
import { createLogger } from '../../shared/log';
import type { SettledCheck } from '../../shared/scanner/scannerPorts';
import { generateWebhookSecret } from '../../shared/webhooks/domain/webhookSecret';
import { OffsetClock } from '../support/clocks';
import { sendOnce, stackAccount } from '../support/mailStack';
import { TEST_SEALER } from '../support/testSealer';
import { startTestService, type TestService } from '../support/testService';
import { type ReceivedWebhook, startWebhookReceiver, verifyDelivery } from '../support/webhookReceiver';

const LOCAL = { allowLoopbackHttp: true };
const accounts = [
  { ...stackAccount('inbox@mail.test'), scope: 'default' },
  { ...stackAccount('junk@mail.test'), scope: 'default' },
  { ...stackAccount('user007@mail.test'), scope: 'quiet' },
];
let service: TestService & { clock: OffsetClock };
let runner: LocalScanRunner;
let sender: LocalWebhookSender;
let hook: Awaited<ReturnType<typeof startWebhookReceiver>>;
const settled: SettledCheck[] = [];

beforeAll(async () => {
  service = await startTestService(new OffsetClock());
  for (const account of accounts)
    await service.deps.accounts.put({
      email: account.email,
      provider: account.provider,
      scope: account.scope,
      active: true,
    });
  const log = createLogger('test-webhooks', 'error', () => undefined);
  service.deps.callbackPolicy = LOCAL;
  service.deps.webhooks = new DynamoWebhookStore(service.client, service.table, TEST_SEALER);
  // What npm start wires: the scanner tells the in-process sender of each delivery it queues.
  sender = new LocalWebhookSender(
    buildDeliverDeps({
      client: service.client,
      tableName: service.table,
      policy: LOCAL,
      clock: service.clock,
      log,
      sealer: TEST_SEALER,
    }),
  );
  await sender.start();
  const { scanner, lease } = createScanner({
    client: service.client,
    tableName: service.table,
    credentials: new StaticCredentialSource(indexCredentials(accounts)),
    clock: service.clock,
    log,
    timeouts: FAST_TIMEOUTS,
    events: { settled: (check) => settled.push(check) },
    onWebhookQueued: (checkId) => sender.kick(checkId),
  });
  runner = new LocalScanRunner(
    { scanner, lease, clock: service.clock, log },
    { intervalMs: 250, leaseTtlMs: 5000, idleGraceMs: 3000 },
  );
  service.deps.trigger = runner;
  runner.start();
  hook = await startWebhookReceiver([200]);
});

afterAll(async () => {
  await runner?.stop();
  await sender?.stop();
  await hook?.close();
  await service?.close();
});

const keyWithSecret = async (scope: string) => {
  const key = await service.issueKey(scope);
  const secret = generateWebhookSecret();
  const stores = service.deps.webhooks as DynamoWebhookStore;
  await stores.createFirst(keyIdOf(hashApiKey(key)), secret, service.clock.now());
  return { key, secret };
};

const start = async (key: string) => {
  const response = await service.request('POST', '/api/spam-check/start', {
    authorization: `Bearer ${key}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ callback_url: hook.url }),
  });
  expect(response.status).toBe(200);
  return response.body as { check_id: string; accounts: string[] };
};

const deliveriesOf = (checkId: string) =>
  hook.received.filter((delivery) => delivery.headers['webhook-id'] === `msg_${checkId}`);

const signedAt = (delivery: ReceivedWebhook) => Number(delivery.headers['webhook-timestamp']) * 1000;

/** Waits until the scanner has settled the check, then a little more: no second delivery may follow. */
const settledAndQuiet = async (checkId: string) => {
  await expect.poll(() => settled.some((check) => check.checkId === checkId), { timeout: 30_000 }).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 1000));
};

describe('webhooks on the mail stack', () => {
  it('a check that completes: one signed delivery of the GET body plus report_url', async () => {
    const { key, secret } = await keyWithSecret('default');
    const check = await start(key);
    await sendOnce(check.accounts, { subject: 'webhook complete' });
    await expect.poll(() => deliveriesOf(check.check_id).length, { timeout: 30_000 }).toBe(1);
    // Queued by the write that completed it, not by settling (every 15 s of the loop's clock): no poll's wait.
    expect(settled.some((ended) => ended.checkId === check.check_id)).toBe(false);
    const delivery = deliveriesOf(check.check_id)[0] as ReceivedWebhook;
    const payload = verifyDelivery(secret, delivery, signedAt(delivery)) as Record<string, unknown>;
    const get = await service.request('GET', `/api/spam-check/${check.check_id}`, {
      authorization: `Bearer ${key}`,
    });
    expect(payload).toEqual({
      ...(get.body as object),
      report_url: `${service.baseUrl}/api/spam-check/${check.check_id}/report`,
    });
    expect(payload.status).toBe('complete');
    // Settling the complete check comes later (every 15 s of the loop's clock): it must not send it again.
    service.clock.advance(20_000);
    await settledAndQuiet(check.check_id);
    expect(deliveriesOf(check.check_id)).toHaveLength(1);
    const report = await service.request('GET', `/api/spam-check/${check.check_id}/report`, {
      authorization: `Bearer ${key}`,
    });
    expect((report.body as { webhook: unknown }).webhook).toMatchObject({
      webhook_id: `msg_${check.check_id}`,
      state: 'delivered',
      attempts: [{ status: 200, error: null }],
    });
  });

  it('a check that times out with no mail at all: one signed delivery with status timeout', async () => {
    const { key, secret } = await keyWithSecret('quiet');
    const check = await start(key);
    service.clock.advance(5 * 60_000 + 1000);
    await expect.poll(() => deliveriesOf(check.check_id).length, { timeout: 30_000 }).toBe(1);
    const delivery = deliveriesOf(check.check_id)[0] as ReceivedWebhook;
    const payload = verifyDelivery(secret, delivery, signedAt(delivery)) as Record<string, unknown>;
    expect(payload).toMatchObject({
      check_id: check.check_id,
      status: 'timeout',
      received: 0,
      total: 1,
      report_url: `${service.baseUrl}/api/spam-check/${check.check_id}/report`,
    });
    expect(() => verifyDelivery(generateWebhookSecret(), delivery, signedAt(delivery))).toThrow();
    await settledAndQuiet(check.check_id);
    expect(deliveriesOf(check.check_id)).toHaveLength(1);
  });
});
