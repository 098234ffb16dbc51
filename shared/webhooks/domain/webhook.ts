// Owns a webhook delivery: its stable id, the self-contained payload built once when the check ends, the attempts
// made and what state that leaves it in. What storage and sending need from the outside is stated in ports here.
import { type Check, type CheckCallback, type CheckView, viewOf } from '../../domain/check';

/** The spec's GET body at the moment the check ended, plus where its report is: sent as is on every attempt. */
export interface WebhookPayload extends CheckView {
  report_url: string;
}

export interface WebhookAttempt {
  /** Milliseconds since the epoch. */
  at: number;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  /** What went wrong, in the service's words (never the receiver's body). */
  error?: string;
}

/** `gone`: the receiver answered 410, so no more attempts; `failed`: the retry window ran out. */
export type DeliveryState = 'queued' | 'delivered' | 'gone' | 'failed';

export interface WebhookDelivery {
  /** `webhook-id`: the same on every attempt, so a receiver can drop repeats. */
  webhookId: string;
  checkId: string;
  keyId: string;
  /** The check's `callback_url`, where every attempt is POSTed. */
  callbackUrl: string;
  /** The payload's JSON text, signed byte for byte. */
  payload: string;
  createdAt: number;
  state: DeliveryState;
  /** When the next attempt is due, while queued. */
  dueAt: number;
  attempts: WebhookAttempt[];
}

const webhookIdOf = (checkId: string): string => `msg_${checkId}`;

/** The payload of a check that has ended (complete or timeout at `now`). */
const webhookPayloadOf = (check: Check, reportUrl: string, now: number): WebhookPayload => ({
  ...viewOf(check, now),
  report_url: reportUrl,
});

/** The delivery a check's end enqueues: due at once, nothing tried yet. */
export const newDelivery = (check: Check, callback: CheckCallback, now: number): WebhookDelivery => ({
  webhookId: webhookIdOf(check.checkId),
  checkId: check.checkId,
  keyId: callback.keyId,
  callbackUrl: callback.callbackUrl,
  payload: JSON.stringify(webhookPayloadOf(check, callback.reportUrl, now)),
  createdAt: now,
  state: 'queued',
  dueAt: now,
  attempts: [],
});

/** How a delivery is kept; writes are conditional on the attempts seen, so two senders cannot both record one. */
export interface WebhookStore {
  get(checkId: string): Promise<WebhookDelivery | undefined>;
  /** Records the attempt and the delivery's next state; false (nothing written) if another sender got there first. */
  recordAttempt(
    delivery: WebhookDelivery,
    attempt: WebhookAttempt,
    next: Pick<WebhookDelivery, 'state' | 'dueAt'>,
  ): Promise<boolean>;
  /** Deliveries still queued (npm start's queue; on AWS the queue is SQS). */
  queued(): Promise<WebhookDelivery[]>;
}

/** What one POST to a receiver came to: an answer (status, Retry-After in ms) or a failure before one. */
export type PostOutcome = { status: number; retryAfterMs?: number } | { error: string };

export interface WebhookPoster {
  post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome>;
}

/** Signs a payload with every secret given (Standard Webhooks: space-separated `v1,<sig>`). */
export type WebhookSigner = (
  webhookId: string,
  at: Date,
  payload: string,
  secrets: readonly string[],
) => string;

/** The three headers of one attempt: the id stays, the timestamp and signatures are the attempt's own. */
export const webhookHeaders = (webhookId: string, at: Date, signature: string): Record<string, string> => ({
  'webhook-id': webhookId,
  'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  'webhook-signature': signature,
});
