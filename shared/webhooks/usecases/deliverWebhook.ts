// Owns one attempt at a queued webhook: sign it with the key's current secrets, POST it, record the attempt and
// when (if ever) to try again. The one sending path, run by npm start's in-process sender and by the AWS sender.
import type { Clock } from '../../domain/clock';
import type { Logger } from '../../log';
import {
  type PostOutcome,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookPoster,
  type WebhookSigner,
  type WebhookStore,
  webhookHeaders,
} from '../domain/webhook';
import { nextAttemptAt, verdictOf } from '../domain/webhookRetry';
import { signingSecrets, type WebhookSecretStore } from '../domain/webhookSecret';

export interface DeliverDeps {
  deliveries: WebhookStore;
  secrets: Pick<WebhookSecretStore, 'secretsOf'>;
  poster: WebhookPoster;
  sign: WebhookSigner;
  clock: Clock;
  log: Logger;
  /** For the backoff's jitter; Math.random unless a test fixes it. */
  random?: () => number;
}

/** A redirect is an answer, but a failed attempt: it is never followed, and the attempt says so. */
const attemptOf = (at: number, outcome: PostOutcome): WebhookAttempt => {
  if ('error' in outcome) return { at, error: outcome.error };
  const { status } = outcome;
  return status >= 300 && status < 400 ? { at, status, error: 'a redirect, not followed' } : { at, status };
};

const stateOf = (outcome: PostOutcome, retryAt: number | undefined): WebhookDelivery['state'] => {
  const verdict = verdictOf(outcome);
  if (verdict !== 'retry') return verdict;
  return retryAt === undefined ? 'failed' : 'queued';
};

/**
 * Makes the delivery's next attempt if it is due, and returns the delivery as it then stands (undefined: there is
 * none). One not due yet, or no longer queued, is returned unchanged and nothing is sent.
 */
export const attemptDelivery = async (
  deps: DeliverDeps,
  checkId: string,
): Promise<WebhookDelivery | undefined> => {
  const delivery = await deps.deliveries.get(checkId);
  const now = deps.clock.now();
  if (delivery?.state !== 'queued' || delivery.dueAt > now) return delivery;
  const secrets = signingSecrets(await deps.secrets.secretsOf(delivery.keyId), now);
  // A key with no secret (an operator's mistake) is retried like a receiver that is down, so fixing it in time helps.
  const outcome: PostOutcome =
    secrets.length === 0
      ? { error: 'no webhook secret for the API key' }
      : await deps.poster.post(
          delivery.callbackUrl,
          webhookHeaders(
            delivery.webhookId,
            new Date(now),
            deps.sign(delivery.webhookId, new Date(now), delivery.payload, secrets),
          ),
          delivery.payload,
        );
  const after = deps.clock.now();
  const attempt = attemptOf(now, outcome);
  const attempts = [...delivery.attempts, attempt];
  const retryAt = nextAttemptAt(outcome, attempts, after, deps.random ?? Math.random);
  const state = stateOf(outcome, retryAt);
  const next = { state, dueAt: retryAt ?? after };
  if (!(await deps.deliveries.recordAttempt(delivery, attempt, next))) return deps.deliveries.get(checkId);
  deps.log.info('webhook attempt', {
    check_id: checkId,
    webhook_id: delivery.webhookId,
    attempt: attempts.length,
    ...attempt,
    state,
    ...(state === 'queued' ? { retry_in_ms: next.dueAt - after } : {}),
  });
  return { ...delivery, attempts, ...next };
};
