// Owns the webhook part of the placement report (an addition): where the check's delivery went, how it stands, and
// each attempt with its time, status code and error.
import type { Principal } from '../../domain/apiKey';
import { getReport } from '../../usecases/getReport';
import type { WebhookDelivery, WebhookStore } from '../domain/webhook';

export interface WebhookView {
  webhook_id: string;
  url: string;
  state: WebhookDelivery['state'];
  next_attempt_at: string | null;
  attempts: { at: string; status: number | null; error: string | null }[];
}

const webhookViewOf = (delivery: WebhookDelivery): WebhookView => ({
  webhook_id: delivery.webhookId,
  url: delivery.callbackUrl,
  state: delivery.state,
  next_attempt_at: delivery.state === 'queued' ? new Date(delivery.dueAt).toISOString() : null,
  attempts: delivery.attempts.map((attempt) => ({
    at: new Date(attempt.at).toISOString(),
    status: attempt.status ?? null,
    error: attempt.error ?? null,
  })),
});

/** The report, with its check's webhook delivery once the check has ended and one was queued. */
export const getReportWithWebhook = async (
  deps: Parameters<typeof getReport>[0] & { webhooks?: Pick<WebhookStore, 'get'> | undefined },
  principal: Principal,
  checkId: string,
) => {
  const report = await getReport(deps, principal, checkId);
  const delivery = await deps.webhooks?.get(report.check_id);
  return delivery ? { ...report, webhook: webhookViewOf(delivery) } : report;
};
