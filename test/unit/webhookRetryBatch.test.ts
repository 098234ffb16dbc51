// The webhook sender's retry queue through Powertools' batch processor and parser: each message's check takes its
// turn, one at a time; a failed turn is reported by message id, even when every turn of the batch failed (SQS counts
// each receipt, then the dead-letter queue); a message naming no check, or too long to be one, is dropped unparsed.
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { retryBatch } from '../../shared/adapters/webhook/retryBatch';
import { newCheckId } from '../../shared/domain/checkId';
import { createLogger } from '../../shared/log';

const message = (id: string, body: string) => ({
  messageId: id,
  receiptHandle: `handle-${id}`,
  body,
  attributes: {
    ApproximateReceiveCount: '1',
    ApproximateFirstReceiveTimestamp: '1767225600000',
    SenderId: 'AIDAEXAMPLE',
    SentTimestamp: '1767225600000',
  },
  messageAttributes: {},
  md5OfBody: '0'.repeat(32),
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:retries',
  awsRegion: 'eu-west-1',
});

const run = async (records: unknown[], failing: ReadonlySet<string> = new Set()) => {
  const turns: string[] = [];
  const lines: string[] = [];
  const handle = retryBatch(
    async (checkId) => {
      turns.push(checkId);
      if (failing.has(checkId)) throw new Error('receiver down');
    },
    createLogger('webhook', 'warn', (line) => lines.push(line)),
  );
  const response = await handle({ Records: records } as SQSEvent);
  return { turns, lines, response };
};

describe('the webhook retry batch', () => {
  it('takes each message in order and reports only the failed turn by message id', async () => {
    const [a, b] = [newCheckId(), newCheckId()];
    const { turns, lines, response } = await run(
      [message('m1', JSON.stringify({ checkId: a })), message('m2', JSON.stringify({ checkId: b }))],
      new Set([a]),
    );
    expect(turns).toEqual([a, b]);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }] });
    expect(lines.join('\n')).toMatch(new RegExp(`"message":"webhook turn failed".*"check_id":"${a}"`));
  });

  it('drops messages naming no check, and answers a batch failing whole without throwing', async () => {
    const only = newCheckId();
    const padded = JSON.stringify({ checkId: only, pad: 'x'.repeat(300) });
    const dropped = await run([
      message('m3', 'not json'),
      message('m4', padded),
      message('m5', '{"checkId":7}'),
    ]);
    expect(dropped.turns).toEqual([]);
    expect(dropped.response).toEqual({ batchItemFailures: [] });
    const failed = await run([message('m6', JSON.stringify({ checkId: only }))], new Set([only]));
    expect(failed.response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm6' }] });
  });
});
