// A webhook receiver on loopback for the tests: it keeps every request (headers, body, when) and answers each with
// the next status of its script (the last one repeats).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';

export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
  /** Real time of arrival. */
  at: number;
}

export const startWebhookReceiver = async (
  statuses: number[] = [200],
  onRequest?: (count: number) => void,
) => {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string') headers[name] = value;
      received.push({ headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const status = statuses[Math.min(received.length, statuses.length) - 1] ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      onRequest?.(received.length);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/**
 * Verifies a delivery with the standardwebhooks package's own verifier, as a receiver would, at `now` (a test clock
 * may sign ahead of real time: the verifier compares webhook-timestamp with Date.now). Throws when it fails.
 */
export const verifyDelivery = (
  secret: string,
  delivery: ReceivedWebhook,
  now: number = Date.now(),
): unknown => {
  const spy = vi.spyOn(Date, 'now').mockReturnValue(now);
  try {
    return new Webhook(secret).verify(delivery.body, delivery.headers);
  } finally {
    spy.mockRestore();
  }
};
