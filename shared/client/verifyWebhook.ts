// Owns checking a webhook the service sent, for a receiver: the Standard Webhooks signature over the exact body, with
// the API key's webhook secret (either of a rotation's two), and a timestamp within five minutes; then its payload.
import { Webhook } from 'standardwebhooks';
import type { CheckView } from './resources';

/**
 * What the service POSTs when a check ends: the GET body at that moment, plus its report's URL.
 *
 * @example
 * ```ts
 * const payload: WebhookPayload = verifyWebhook(secret, req.headers, rawBody);
 * console.log(payload.check_id, payload.status, payload.report_url);
 * ```
 */
export interface WebhookPayload extends CheckView {
  report_url: string;
}

/**
 * A delivery that is not the service's: a header missing, a signature that does not match, a stale timestamp.
 *
 * @example
 * ```ts
 * try {
 *   verifyWebhook(secret, req.headers, rawBody);
 * } catch (error) {
 *   if (error instanceof WebhookVerificationError) res.writeHead(401).end();
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

type HeaderSource = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

const headerOf = (headers: HeaderSource, name: string): string | undefined => {
  if (typeof headers.get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * The payload of a webhook, once its signature checks out with `secret` (`whsec_…`); throws
 * WebhookVerificationError otherwise. `body` must be the raw request body, byte for byte, not a re-serialised parse.
 * `headers`: a fetch Headers, or Node's `req.headers`.
 *
 * @example
 * ```ts
 * // The key's webhook secret (`npm run admin -- keys create` printed it), kept by the receiver.
 * const payload = verifyWebhook(webhookSecret, request.headers, await request.text());
 * if (payload.status === 'complete') await fetchReport(payload.report_url);
 * ```
 */
export const verifyWebhook = (
  secret: string,
  headers: HeaderSource,
  body: string | Buffer,
): WebhookPayload => {
  const wanted: Record<string, string> = {};
  for (const name of NAMES) {
    const value = headerOf(headers, name);
    if (!value) throw new WebhookVerificationError(`missing header ${name}`);
    wanted[name] = value;
  }
  try {
    return new Webhook(secret).verify(body, wanted) as WebhookPayload;
  } catch (error) {
    throw new WebhookVerificationError(error instanceof Error ? error.message : 'invalid signature');
  }
};
