// Webhook delivery on the local store and a loopback receiver, on a test clock: retries with growing gaps until the
// receiver takes it, a 410 that ends it as gone, one delivery per check however often it is queued, and rotated secrets
// that both sign during the overlap.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DynamoWebhookStore } from '../../shared/adapters/dynamo/DynamoWebhookStore';
import { rotateWebhookSecret } from '../../shared/cli/webhookSecretCommands';
import { buildDeliverDeps } from '../../shared/composition/webhookDeps';
import { hashApiKey, keyIdOf } from '../../shared/domain/apiKey';
import { LocalWebhookSender } from '../../shared/local/LocalWebhookSender';
import { createLogger } from '../../shared/log';
import { newDelivery } from '../../shared/webhooks/domain/webhook';
import { generateWebhookSecret } from '../../shared/webhooks/domain/webhookSecret';
import { ManualClock } from '../support/manualClock';
import { TEST_SEALER } from '../support/testSealer';
import { startTestService, type TestService } from '../support/testService';
import { type ReceivedWebhook, startWebhookReceiver, verifyDelivery } from '../support/webhookReceiver';

const LOCAL = { allowLoopbackHttp: true };
const MINUTE = 60_000;
let service: TestService & { clock: ManualClock };
let store: DynamoWebhookStore;
const senders: LocalWebhookSender[] = [];
const receivers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  service = await startTestService(new ManualClock(Date.now()));
  service.deps.callbackPolicy = LOCAL;
  store = new DynamoWebhookStore(service.client, service.table, TEST_SEALER);
  service.deps.webhooks = store;
  await service.addAccounts({ email: 'inbox@mail.test' }, { email: 'junk@mail.test' });
});

afterEach(async () => {
  for (const sender of senders.splice(0)) await sender.stop();
  for (const receiver of receivers.splice(0)) await receiver.close();
});

afterAll(async () => {
  await service?.close();
});

const newKey = async () => {
  const key = await service.issueKey('default');
  const keyId = keyIdOf(hashApiKey(key));
  const secret = generateWebhookSecret();
  await store.createFirst(keyId, secret, service.clock.now());
  return { key, keyId, secret };
};

const receiver = async (statuses: number[]) => {
  const started = await startWebhookReceiver(statuses);
  receivers.push(started);
  return started;
};

/** Starts a check with a callback and lets it time out; settling queues its delivery. */
const endedCheck = async (key: string, url: string): Promise<string> => {
  const started = await service.request('POST', '/api/spam-check/start', {
    authorization: `Bearer ${key}`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ callback_url: url }),
  });
  expect(started.status).toBe(200);
  const checkId = (started.body as { check_id: string }).check_id;
  service.clock.advance(6 * MINUTE);
  expect((await service.openChecks.settle(service.clock.now())).map((check) => check.checkId)).toContain(
    checkId,
  );
  return checkId;
};

const runSender = async () => {
  const sender = new LocalWebhookSender({
    ...buildDeliverDeps({
      client: service.client,
      tableName: service.table,
      policy: LOCAL,
      clock: service.clock,
      log: createLogger('test-webhook', 'error', () => undefined),
      sealer: TEST_SEALER,
    }),
    random: () => 0.5,
  });
  senders.push(sender);
  await sender.start();
  return sender;
};

const signedAt = (delivery: ReceivedWebhook) => Number(delivery.headers['webhook-timestamp']) * 1000;

const reportOf = async (key: string, checkId: string) => {
  const response = await service.request('GET', `/api/spam-check/${checkId}/report`, {
    authorization: `Bearer ${key}`,
  });
  expect(response.status).toBe(200);
  return response.body as {
    webhook?: { state: string; attempts: { at: string; status: number | null; error: string | null }[] };
  };
};

describe('webhook delivery', () => {
  it('a receiver answering 500 twice then 200 gets three attempts with growing gaps, then nothing more', async () => {
    const { key, secret } = await newKey();
    const hook = await receiver([500, 500, 200]);
    const checkId = await endedCheck(key, hook.url);
    const sender = await runSender();
    await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBe(3);
    await expect.poll(async () => (await reportOf(key, checkId)).webhook?.state).toBe('delivered');
    const attempts = (await reportOf(key, checkId)).webhook?.attempts ?? [];
    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 500, 200]);
    const times = attempts.map((attempt) => Date.parse(attempt.at));
    const [first, second] = [(times[1] ?? 0) - (times[0] ?? 0), (times[2] ?? 0) - (times[1] ?? 0)];
    expect(first).toBeGreaterThanOrEqual(3750);
    expect(second).toBeGreaterThan(first);
    for (const delivery of hook.received) {
      expect(delivery.headers['webhook-id']).toBe(`msg_${checkId}`);
      const payload = verifyDelivery(secret, delivery, signedAt(delivery)) as {
        check_id: string;
        status: string;
      };
      expect(payload).toMatchObject({ check_id: checkId, status: 'timeout' });
    }
    // Queued again (a second settling, a retried write): the same delivery, never a second one.
    const check = await service.deps.checks.get(checkId);
    if (!check?.callback) throw new Error('the check lost its callback URL');
    const deliveries = new DynamoWebhookStore(service.client, service.table);
    await deliveries.enqueue(newDelivery(check, check.callback, service.clock.now()));
    expect((await deliveries.get(checkId))?.attempts).toHaveLength(3);
    expect(await service.openChecks.settle(service.clock.now())).toEqual([]);
    sender.kick(checkId);
    service.clock.advance(MINUTE);
    sender.kick(checkId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.received).toHaveLength(3);
  });

  it('410 Gone ends the delivery after one attempt, and the report says gone', async () => {
    const { key } = await newKey();
    const hook = await receiver([410]);
    const checkId = await endedCheck(key, hook.url);
    await runSender();
    await expect.poll(async () => (await reportOf(key, checkId)).webhook?.state).toBe('gone');
    expect((await reportOf(key, checkId)).webhook?.attempts.map((attempt) => attempt.status)).toEqual([410]);
    expect(hook.received).toHaveLength(1);
  });

  it('a rotated secret: both sign during the overlap, only the new one after it', async () => {
    const { key, keyId, secret: old } = await newKey();
    const hook = await receiver([200]);
    const printed: string[] = [];
    await rotateWebhookSecret(
      {
        secrets: store,
        keys: service.deps.keys,
        out: (text) => printed.push(text),
        json: true,
        now: service.clock.now(),
      },
      keyId,
      '24h',
    );
    const fresh = (JSON.parse(printed[0] ?? '{}') as { webhook_secret: string }).webhook_secret;
    expect(fresh).toMatch(/^whsec_/);
    await endedCheck(key, hook.url);
    await runSender();
    await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBe(1);
    const during = hook.received[0] as ReceivedWebhook;
    expect(during.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verifyDelivery(old, during, signedAt(during))).toBeTruthy();
    expect(verifyDelivery(fresh, during, signedAt(during))).toBeTruthy();

    service.clock.advance(24 * 60 * MINUTE);
    await endedCheck(key, hook.url);
    for (const sender of senders) sender.kick('');
    await runSender();
    await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBe(2);
    const after = hook.received[1] as ReceivedWebhook;
    expect(verifyDelivery(fresh, after, signedAt(after))).toBeTruthy();
    expect(() => verifyDelivery(old, after, signedAt(after))).toThrow(/No matching signature/);
  });
});
