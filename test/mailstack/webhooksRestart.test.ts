// npm start stopped between two attempts of a webhook and started again on the same DATA_DIR: the delivery waits in
// the local store and the restarted service sends it, with the same webhook-id, signed with the secret npm start
// printed for the config file's key on its first start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnEntry } from '../../scripts/lib/process';
import { sendOnce, stackAccount } from '../support/mailStack';
import { type ReceivedWebhook, startWebhookReceiver, verifyDelivery } from '../support/webhookReceiver';

const MAIN = 'shared/main/start.ts';
const API_KEY = 'ipk_webhook-restart-test-key-0123456789';
const ready = /listening on (http:\/\/127\.0\.0\.1:\d+)/;
const secretLine = /Webhook secret for key \w+ \(scope "default", shown once, save it\): (whsec_\S+)/;

let dir: string;
let configPath: string;
const stops: (() => Promise<unknown>)[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'inbox-placement-webhook-restart-'));
  configPath = join(dir, 'local.json');
  const accounts = ['inbox', 'junk'].map((name) => ({
    ...stackAccount(`${name}@mail.test`),
    scope: 'default',
  }));
  writeFileSync(configPath, JSON.stringify({ accounts, apiKeys: [{ key: API_KEY, scope: 'default' }] }), {
    mode: 0o600,
  });
});

afterAll(async () => {
  for (const stop of stops) await stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const startService = async () => {
  const started = await spawnEntry(
    MAIN,
    {
      PORT: '0',
      DATA_DIR: join(dir, 'data'),
      LOCAL_CONFIG: configPath,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_LOOPBACK_HTTP: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    ready,
  );
  stops.push(() => started.stop('SIGKILL'));
  return { ...started, baseUrl: started.match[1] ?? '' };
};

describe('npm start restarted between two attempts of a webhook', () => {
  it('sends the delivery after the restart: none is lost', async () => {
    let service = await startService();
    const secret = secretLine.exec(service.output())?.[1];
    expect(secret).toMatch(/^whsec_/);
    // The first attempt is refused with a 500; the service is stopped before the retry falls due.
    let stopping: Promise<unknown> | undefined;
    const hook = await startWebhookReceiver([500, 200], (count) => {
      if (count === 1) stopping = service.stop('SIGTERM');
    });
    try {
      const started = await fetch(`${service.baseUrl}/api/spam-check/start`, {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ callback_url: hook.url }),
      });
      expect(started.status).toBe(200);
      const { check_id, accounts } = (await started.json()) as { check_id: string; accounts: string[] };
      await sendOnce(accounts, { subject: 'webhook restart' });
      await expect.poll(() => hook.received.length, { timeout: 30_000 }).toBe(1);
      expect(await stopping).toBe(0);

      service = await startService();
      // Read back from the store at start, sent when its retry is due (seconds, in real time).
      await expect.poll(() => hook.received.length, { timeout: 30_000 }).toBe(2);
      const [first, second] = hook.received as [ReceivedWebhook, ReceivedWebhook];
      expect(second.headers['webhook-id']).toBe(`msg_${check_id}`);
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.body).toBe(first.body);
      expect(verifyDelivery(secret ?? '', second)).toMatchObject({ check_id, status: 'complete' });
      const report = await fetch(`${service.baseUrl}/api/spam-check/${check_id}/report`, {
        headers: { authorization: `Bearer ${API_KEY}` },
      });
      const { webhook } = (await report.json()) as {
        webhook: { state: string; attempts: { status: number }[] };
      };
      expect(webhook.state).toBe('delivered');
      expect(webhook.attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
      // The second start printed no new secret: the key keeps the one it was given.
      expect(service.output()).not.toMatch(secretLine);
    } finally {
      await hook.close();
    }
  }, 90_000);
});
