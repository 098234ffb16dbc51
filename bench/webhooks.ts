// Benchmark: signed completion webhooks under `npm start` over the loopback mail stack. Each check is started with a
// callback_url on a loopback receiver; its copies go straight to Dovecot's LMTP. Measured side by side per check:
// - from the check completing (the report's completed_at: its last result recorded) to the receiver holding the
//   signed delivery, verified with the standardwebhooks verifier;
// - the requests a client makes for the check: polling GET at the spec's default interval until it settles, against
//   the start alone with a webhook (the delivery carries the GET body); and how late each learns the result.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { deliverLmtp } from '../scripts/lib/mailStack';
import { pause } from '../scripts/lib/poll';
import { POLL_INTERVAL_MS } from '../shared/client';
import type { AccountEntry } from '../shared/local/localConfig';
import { type BenchAccount, latencyStats, startLocalServer } from './localServer';

export interface WebhookBenchOptions {
  /** Mailboxes of the stack; every check covers all of them. */
  accounts: AccountEntry[];
  checks: number;
  intervalMs: number;
  /** The polling client's interval: the spec's (and the check CLI's) default unless told. */
  pollIntervalMs?: number;
  progress?: (line: string) => void;
}

interface Delivery {
  at: number;
  body: string;
  headers: IncomingHttpHeaders;
}

/** The most a check waits for its delivery before the bench calls it missing. */
const DELIVERY_DEADLINE_MS = 60_000;
/** A delivery body is one check: a few KB; anything larger is cut off and fails verification. */
const MAX_BODY_BYTES = 256 * 1024;

const checkIdOf = (body: string): string => {
  try {
    const parsed = JSON.parse(body) as { check_id?: unknown };
    return typeof parsed.check_id === 'string' ? parsed.check_id : '?';
  } catch {
    return '?';
  }
};

const startReceiver = async () => {
  const deliveries = new Map<string, Delivery[]>();
  const waiters = new Map<string, () => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const checkId = checkIdOf(body);
      deliveries.set(checkId, [...(deliveries.get(checkId) ?? []), { at, body, headers: request.headers }]);
      waiters.get(checkId)?.();
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/placement`,
    deliveries,
    /** Resolves once the check's first delivery is in, or after the deadline. */
    arrival: (checkId: string) =>
      new Promise<void>((resolve) => {
        if (deliveries.has(checkId)) return resolve();
        const timer = setTimeout(resolve, DELIVERY_DEADLINE_MS);
        waiters.set(checkId, () => {
          clearTimeout(timer);
          waiters.delete(checkId);
          resolve();
        });
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const mean = (values: number[]) =>
  values.length === 0
    ? Number.NaN
    : Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 100) / 100;

export const runWebhookBench = async (options: WebhookBenchOptions) => {
  const { accounts, checks, intervalMs } = options;
  const pollIntervalMs = options.pollIntervalMs ?? POLL_INTERVAL_MS.default;
  const say = options.progress ?? (() => undefined);
  const receiver = await startReceiver();
  const server = await startLocalServer(accounts as unknown as BenchAccount[], {
    SCAN_INTERVAL_MS: String(intervalMs),
    WEBHOOK_ALLOW_LOOPBACK_HTTP: '1',
  });
  const secret = /Webhook secret for key \S+ \(scope "default", shown once, save it\): (\S+)/.exec(
    server.output(),
  )?.[1];
  const headers = { authorization: `Bearer ${server.key}` };
  const get = async (path: string) => {
    const response = await fetch(`${server.baseUrl}${path}`, { headers });
    if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
    return (await response.json()) as Record<string, unknown>;
  };
  const completeToDelivery: number[] = [];
  const completeToPollSeen: number[] = [];
  const pollingRequests: number[] = [];
  const webhookRequests: number[] = [];
  let verified = 0;
  let duplicates = 0;
  let missing = 0;
  try {
    if (!secret) throw new Error(`npm start printed no webhook secret:\n${server.output()}`);
    const verifier = new Webhook(secret);
    say(
      `webhooks: ${checks} checks x ${accounts.length} accounts, polling every ${pollIntervalMs} ms beside`,
    );
    for (let run = 0; run < checks; run++) {
      const response = await fetch(`${server.baseUrl}/api/spam-check/start`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ callback_url: receiver.url }),
      });
      if (response.status !== 200)
        throw new Error(`start answered ${response.status}: ${await response.text()}`);
      const started = (await response.json()) as { check_id: string; accounts: string[] };
      // The webhook client: the start, then nothing until the delivery; without one by the deadline, a GET.
      const webhookClient = receiver.arrival(started.check_id).then(async () => {
        if (receiver.deliveries.has(started.check_id)) return 1;
        await get(`/api/spam-check/${started.check_id}`);
        return 2;
      });
      // The polling client a webhook replaces: the start, then a GET every interval until the check settles.
      const polling = (async () => {
        let requests = 1;
        for (;;) {
          requests++;
          const body = await get(`/api/spam-check/${started.check_id}`);
          if (body.status !== 'pending') return { requests, seenAt: Date.now() };
          await pause(pollIntervalMs);
        }
      })();
      await deliverLmtp(started.accounts, { text: `webhook bench ${run}` });
      const [{ requests, seenAt }, webhookCount] = await Promise.all([polling, webhookClient]);
      webhookRequests.push(webhookCount);
      const report = await get(`/api/spam-check/${started.check_id}/report`);
      const completedAt = Date.parse(String(report.completed_at));
      const received = receiver.deliveries.get(started.check_id) ?? [];
      const first = received[0];
      pollingRequests.push(requests);
      completeToPollSeen.push(seenAt - completedAt);
      if (!first) {
        missing++;
        continue;
      }
      // Retried only on failure: a second delivery of a check this receiver accepted would be a duplicate.
      duplicates += received.length - 1;
      verifier.verify(first.body, first.headers as Record<string, string>);
      verified++;
      completeToDelivery.push(first.at - completedAt);
      if ((run + 1) % 5 === 0) say(`  ${run + 1}/${checks} checks`);
    }
  } finally {
    await server.stop();
    await receiver.close();
  }
  const summary = {
    benchmark: 'webhook delivery after completion, and requests per check: polling vs webhook',
    checks,
    accounts: accounts.length,
    completeToDelivery: latencyStats(completeToDelivery),
    completeToPollSeen: latencyStats(completeToPollSeen),
    pollIntervalMs,
    requestsPerCheck: { polling: mean(pollingRequests), webhook: mean(webhookRequests) },
    verified,
    duplicates,
    missing,
    node: process.version,
  };
  say(`  complete to delivery: ${JSON.stringify(summary.completeToDelivery)}`);
  say(`  requests per check: ${JSON.stringify(summary.requestsPerCheck)}`);
  return summary;
};
