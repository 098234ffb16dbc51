// A delivery's turn as the AWS sender takes it: one attempt when due, then, while it stays queued, a message on the
// retry queue delayed until it falls due, never longer than SQS allows; nothing once it has ended.

import type { SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { SqsRetryQueue } from '../../shared/adapters/webhook/SqsRetryQueue';
import { createLogger } from '../../shared/log';
import type { PostOutcome, WebhookAttempt, WebhookDelivery } from '../../shared/webhooks/domain/webhook';
import { takeDeliveryTurn } from '../../shared/webhooks/usecases/deliverWebhookQueued';
import { ManualClock } from '../support/manualClock';

/** An in-memory delivery, a poster answering from a script, and a retry queue that records what it was given. */
const setUp = (answers: PostOutcome[], dueIn = 0) => {
  const clock = new ManualClock();
  let delivery: WebhookDelivery = {
    webhookId: 'msg_abc',
    checkId: 'abc',
    keyId: 'key',
    callbackUrl: 'https://hooks.example.com/',
    payload: '{}',
    createdAt: clock.now(),
    state: 'queued',
    dueAt: clock.now() + dueIn,
    attempts: [],
  };
  const scheduled: number[] = [];
  const deps = {
    deliveries: {
      get: async () => delivery,
      queued: async () => [delivery],
      recordAttempt: async (
        _seen: WebhookDelivery,
        attempt: WebhookAttempt,
        next: Pick<WebhookDelivery, 'state' | 'dueAt'>,
      ) => {
        delivery = { ...delivery, ...next, attempts: [...delivery.attempts, attempt] };
        return true;
      },
    },
    secrets: {
      secretsOf: async () => [{ secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0', createdAt: 0 }],
    },
    poster: { post: async () => answers.shift() ?? { status: 200 } },
    sign: () => 'v1,sig',
    clock,
    log: createLogger('test', 'error', () => undefined),
    random: () => 1,
    retries: { schedule: async (_checkId: string, delayMs: number) => void scheduled.push(delayMs) },
  };
  return { deps, scheduled, current: () => delivery, clock };
};

describe('a turn of the AWS sender', () => {
  it('a failure puts the delivery back on the queue for when its retry is due', async () => {
    const { deps, scheduled, current } = setUp([{ status: 503 }]);
    await takeDeliveryTurn(deps, 'abc');
    expect(current().attempts).toEqual([{ at: expect.any(Number), status: 503 }]);
    expect(scheduled).toEqual([5000]);
  });

  it('a turn that comes early sends nothing and waits again for the rest', async () => {
    const { deps, scheduled, current } = setUp([], 3600_000);
    await takeDeliveryTurn(deps, 'abc');
    expect(current().attempts).toEqual([]);
    expect(scheduled).toEqual([3600_000]);
  });

  it('a delivered or gone (410) delivery is not queued again', async () => {
    for (const [answer, state] of [
      [{ status: 200 }, 'delivered'],
      [{ status: 410 }, 'gone'],
    ] as const) {
      const { deps, scheduled, current } = setUp([answer]);
      await takeDeliveryTurn(deps, 'abc');
      expect(current().state).toBe(state);
      expect(scheduled).toEqual([]);
    }
  });

  it('a 401, a 404 or a redirect is retried, the redirect recorded as not followed', async () => {
    const { deps, scheduled, current } = setUp([{ status: 401 }, { status: 404 }, { status: 302 }]);
    for (let turn = 0; turn < 3; turn++) {
      await takeDeliveryTurn(deps, 'abc');
      deps.clock.advance(3600_000);
    }
    expect(current().state).toBe('queued');
    expect(current().attempts.map(({ status, error }) => [status, error])).toEqual([
      [401, undefined],
      [404, undefined],
      [302, 'a redirect, not followed'],
    ]);
    expect(scheduled).toHaveLength(3);
  });

  it('the queue delays a message by at most SQS allows, naming only the check', async () => {
    const sent: { DelaySeconds?: number; MessageBody?: string }[] = [];
    const client = {
      send: async (command: { input: (typeof sent)[number] }) => void sent.push(command.input),
    };
    const queue = new SqsRetryQueue(client as unknown as SQSClient, 'https://sqs.example/queue');
    await queue.schedule('abc', 4200);
    await queue.schedule('abc', 6 * 3600_000);
    expect(sent.map((input) => input.DelaySeconds)).toEqual([5, 900]);
    expect(sent.map((input) => input.MessageBody)).toEqual(['{"checkId":"abc"}', '{"checkId":"abc"}']);
  });
});
