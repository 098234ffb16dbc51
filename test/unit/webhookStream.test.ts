// The webhook sender's stream batches through Powertools' batch processor and parser: each delivery insert takes its
// turn, one at a time; a record whose turn fails or that is no stream record is reported by its sequence number in
// batchItemFailures (the stream retries from it), the others are not; anything else that parses is skipped; a batch
// that fails whole throws, as the stream's retry of the whole batch needs.
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { deliveryStream } from '../../shared/adapters/webhook/deliveryStream';
import { newCheckId } from '../../shared/domain/checkId';
import { createLogger } from '../../shared/log';

const record = (sequence: string, pk: string, eventName = 'INSERT') => ({
  eventID: `id-${sequence}`,
  eventName,
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'eu-west-1',
  eventSourceARN: 'arn:aws:dynamodb:eu-west-1:123456789012:table/t/stream/2026-01-01T00:00:00.000',
  dynamodb: {
    ApproximateCreationDateTime: 1_767_225_600,
    Keys: { pk: { S: pk }, sk: { S: 'DELIVERY' } },
    SequenceNumber: sequence,
    SizeBytes: 64,
    StreamViewType: 'KEYS_ONLY',
  },
});

const run = async (records: unknown[], failing: ReadonlySet<string> = new Set()) => {
  const turns: string[] = [];
  const lines: string[] = [];
  const handle = deliveryStream(
    async (checkId) => {
      turns.push(checkId);
      if (failing.has(checkId)) throw new Error('receiver down');
    },
    createLogger('webhook', 'warn', (line) => lines.push(line)),
  );
  const response = await handle({ Records: records } as DynamoDBStreamEvent);
  return { turns, lines, response };
};

describe('the webhook stream batch', () => {
  it('takes each delivery insert in order and reports only the failed one by its sequence number', async () => {
    const [a, b, c] = [newCheckId(), newCheckId(), newCheckId()];
    const { turns, response } = await run(
      [record('101', `WEBHOOK#${a}`), record('102', `WEBHOOK#${b}`), record('103', `WEBHOOK#${c}`)],
      new Set([b]),
    );
    expect(turns).toEqual([a, b, c]);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '102' }] });
  });

  it('reports a record that is not a stream record, and skips a parsed one that is no delivery insert', async () => {
    const good = newCheckId();
    const malformed = { ...record('202', `WEBHOOK#${good}`), eventSource: 'aws:sqs' };
    const { turns, lines, response } = await run([
      record('201', `WEBHOOK#${good}`),
      malformed,
      record('203', 'CHECK#not-a-delivery'),
      record('204', `WEBHOOK#${newCheckId()}`, 'MODIFY'),
    ]);
    expect(turns).toEqual([good]);
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '202' }] });
    expect(lines.filter((line) => line.includes('no delivery insert'))).toHaveLength(2);
  });

  it('throws when every record of the batch failed', async () => {
    const only = newCheckId();
    await expect(run([record('301', `WEBHOOK#${only}`)], new Set([only]))).rejects.toThrow(
      /All records failed/,
    );
  });
});
