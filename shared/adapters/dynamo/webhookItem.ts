// Owns a webhook delivery's item: the delivery (payload, attempts, state) to and from the table.
import type { WebhookAttempt, WebhookDelivery } from '../../webhooks';
import { RETRY_WINDOW_MS } from '../../webhooks';
import { num, str } from './itemFields';
import { type Item, type ItemType, webhookKey } from './keys';

/** Kept two days past the retry window, so the report (and an operator) can still see how it ended. */
const KEEP_MS = RETRY_WINDOW_MS + 2 * 24 * 3600 * 1000;

/**
 * Deliveries written before the callback URL kept one name stored it as `url`; they are read as written until they
 * expire (KEEP_MS), then this goes.
 */
const LEGACY_URL = 'url';

export const deliveryToItem = (delivery: WebhookDelivery): Item => ({
  ...webhookKey(delivery.checkId),
  type: 'webhook' satisfies ItemType,
  webhookId: delivery.webhookId,
  checkId: delivery.checkId,
  keyId: delivery.keyId,
  callbackUrl: delivery.callbackUrl,
  payload: delivery.payload,
  createdAt: delivery.createdAt,
  state: delivery.state,
  dueAt: delivery.dueAt,
  attempts: delivery.attempts,
  attemptCount: delivery.attempts.length,
  purgeAt: Math.ceil((delivery.createdAt + KEEP_MS) / 1000),
});

const attemptOf = (raw: unknown): WebhookAttempt => {
  const { at, status, error } = (raw ?? {}) as Record<string, unknown>;
  return {
    at: typeof at === 'number' ? at : 0,
    ...(typeof status === 'number' ? { status } : {}),
    ...(typeof error === 'string' ? { error } : {}),
  };
};

export const deliveryFromItem = (item: Item): WebhookDelivery => {
  const state = str(item, 'state');
  return {
    webhookId: str(item, 'webhookId'),
    checkId: str(item, 'checkId'),
    keyId: str(item, 'keyId'),
    callbackUrl: str(item, LEGACY_URL in item ? LEGACY_URL : 'callbackUrl'),
    payload: str(item, 'payload'),
    createdAt: num(item, 'createdAt'),
    state: state === 'delivered' || state === 'gone' || state === 'failed' ? state : 'queued',
    dueAt: num(item, 'dueAt'),
    attempts: Array.isArray(item.attempts) ? item.attempts.map(attemptOf) : [],
  };
};
