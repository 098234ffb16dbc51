// Owns signing a webhook by the Standard Webhooks convention, with the standardwebhooks package: one `v1,<sig>` per
// secret that signs now, space-separated, so a receiver holding either secret of a rotation's overlap verifies it.
import { Webhook } from 'standardwebhooks';
import type { WebhookSigner } from '../../webhooks';

export const signWebhook: WebhookSigner = (webhookId, at, payload, secrets) =>
  secrets.map((secret) => new Webhook(secret).sign(webhookId, at, payload)).join(' ');
