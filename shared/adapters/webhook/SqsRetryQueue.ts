// Owns the AWS retry queue of webhook deliveries: a message per waiting delivery, naming only its check, delayed
// until it falls due (at most SQS's 15 minutes; the sender puts it back for the rest).
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RetryQueue } from '../../webhooks';

/** SQS's longest message delay. */
const MAX_SQS_DELAY_SECONDS = 900;

export class SqsRetryQueue implements RetryQueue {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async schedule(checkId: string, delayMs: number): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify({ checkId }),
        DelaySeconds: Math.min(MAX_SQS_DELAY_SECONDS, Math.max(0, Math.ceil(delayMs / 1000))),
      }),
    );
  }
}
