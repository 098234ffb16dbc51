// Owns the webhooks feature's only door: what code outside shared/webhooks/ may use of it. Inside, modules
// import each other directly; tests may reach any module, as a package's own tests import its modules.
export { MAX_START_BODY_BYTES, mentionsCallback, parseStartRequest } from './domain/callbackUrl';
export type {
  PostOutcome,
  WebhookAttempt,
  WebhookDelivery,
  WebhookPoster,
  WebhookSigner,
  WebhookStore,
} from './domain/webhook';
export { newDelivery } from './domain/webhook';
export { RETRY_WINDOW_MS, retryAfterMsOf } from './domain/webhookRetry';
export type { WebhookSecret, WebhookSecretStore } from './domain/webhookSecret';
export { DEFAULT_ROTATION_OVERLAP_MS, generateWebhookSecret, rotatedSecrets } from './domain/webhookSecret';
export type { DeliverDeps } from './usecases/deliverWebhook';
export { attemptDelivery } from './usecases/deliverWebhook';
export type { RetryQueue } from './usecases/deliverWebhookQueued';
export { takeDeliveryTurn } from './usecases/deliverWebhookQueued';
export { getReportWithWebhook } from './usecases/reportWebhook';
