// The typed client's side of webhooks: startCheck with a callback URL, and verifyWebhook as a receiver uses it,
// against signatures the service's own signer makes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhook } from '../../shared/adapters/webhook/signing';
import { createClient, verifyWebhook, WebhookVerificationError } from '../../shared/client';
import { webhookHeaders } from '../../shared/webhooks/domain/webhook';
import { generateWebhookSecret } from '../../shared/webhooks/domain/webhookSecret';
import { startTestService, type TestService } from '../support/testService';

const payload = JSON.stringify({ check_id: 'abc', status: 'complete', report_url: 'https://x.example/r' });
const signed = (secrets: string[], body = payload, at = new Date()) =>
  webhookHeaders('msg_abc', at, signWebhook('msg_abc', at, body, secrets));

describe('verifyWebhook', () => {
  const [one, two] = [generateWebhookSecret(), generateWebhookSecret()];

  it('returns the payload of a delivery signed with the secret, from Node headers or fetch Headers', () => {
    const headers = signed([one]);
    expect(verifyWebhook(one, headers, payload)).toMatchObject({ check_id: 'abc', status: 'complete' });
    expect(verifyWebhook(one, new Headers(headers), Buffer.from(payload))).toMatchObject({ check_id: 'abc' });
  });

  it('accepts either secret of a rotation while both sign', () => {
    const headers = signed([two, one]);
    expect(verifyWebhook(one, headers, payload)).toMatchObject({ check_id: 'abc' });
    expect(verifyWebhook(two, headers, payload)).toMatchObject({ check_id: 'abc' });
  });

  it('refuses another secret, a changed body, a missing header and a stale timestamp', () => {
    const headers = signed([one]);
    expect(() => verifyWebhook(two, headers, payload)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(one, headers, payload.replace('complete', 'timeout'))).toThrow(
      WebhookVerificationError,
    );
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    expect(() => verifyWebhook(one, unsigned, payload)).toThrow('missing header webhook-signature');
    const stale = signed([one], payload, new Date(Date.now() - 10 * 60_000));
    expect(() => verifyWebhook(one, stale, payload)).toThrow(WebhookVerificationError);
  });
});

describe('startCheck with a callback URL', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
    await service.addAccounts({ email: 'inbox@mail.test' });
  });
  afterAll(async () => {
    await service?.close();
  });

  it('sends the URL as the start body; the check keeps it', async () => {
    const client = createClient({ baseUrl: service.baseUrl, apiKey: await service.issueKey('default') });
    const started = await client.startCheck({ callbackUrl: 'https://hooks.example.com/placement' });
    expect((await service.deps.checks.get(started.check_id))?.callback?.callbackUrl).toBe(
      'https://hooks.example.com/placement',
    );
    const plain = await client.startCheck();
    expect((await service.deps.checks.get(plain.check_id))?.callback).toBeUndefined();
  });
});
