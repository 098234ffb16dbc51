// Owns the webhook sender's reading of its retry queue: each message parsed by Powertools' parser (its SQS record
// schema) inside Powertools' batch processor; its body, what SqsRetryQueue writes, is capped before it is parsed and
// names the check whose turn it is. A failed turn is reported by message id (SQS hands it back, then its dead-letter
// queue); a message naming no check is dropped with a line, since no later receipt could make it name one.
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { parser } from '@aws-lambda-powertools/batch/parser';
import { SqsRecordSchema } from '@aws-lambda-powertools/parser/schemas/sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { z } from 'zod';
import { isCheckId } from '../../domain/checkId';
import type { Logger } from '../../log';

/** A retry message is `{"checkId":"…"}`: anything longer is not one, and is not parsed. */
const MAX_BODY_CHARS = 256;

const checkIdOfMessage = (body: string): string | undefined => {
  if (body.length > MAX_BODY_CHARS) return undefined;
  try {
    const { checkId } = JSON.parse(body) as { checkId?: unknown };
    return typeof checkId === 'string' && isCheckId(checkId) ? checkId : undefined;
  } catch {
    return undefined;
  }
};

/** A handler of the retry queue's batches that takes `turn` for each message's check, one at a time. */
export const retryBatch = (turn: (checkId: string) => Promise<unknown>, log: Logger) => {
  const processor = new BatchProcessor(EventType.SQS, { parser, schema: SqsRecordSchema, logger: log });
  const handle = async (record: z.infer<typeof SqsRecordSchema>): Promise<void> => {
    const checkId = checkIdOfMessage(record.body);
    if (!checkId) {
      log.warn('dropped a retry message that names no check');
      return;
    }
    try {
      await turn(checkId);
    } catch (error) {
      log.warn('webhook turn failed', { check_id: checkId, error });
      throw error;
    }
  };
  // A batch whose every turn failed is answered with all of them, as one failing alone: SQS counts each receipt.
  return (event: SQSEvent): Promise<SQSBatchResponse> =>
    processPartialResponse(event, handle, processor, {
      processInParallel: false,
      throwOnFullBatchFailure: false,
    });
};
