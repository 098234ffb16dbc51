// Owns kicking the scanner Lambda from start, asynchronously, so a new check does not wait for the schedule.
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { ScanTrigger } from '../domain/ports';
import type { Logger } from '../log';

/** The event a kicked scanner receives; the schedule sends EventBridge's own event instead. */
export const KICK_EVENT = { source: 'inbox-placement.start', kick: true } as const;

export class LambdaScanTrigger implements ScanTrigger {
  constructor(
    private readonly client: LambdaClient,
    private readonly functionName: string,
    private readonly log: Logger,
  ) {}

  async kick(): Promise<void> {
    try {
      await this.client.send(
        new InvokeCommand({
          FunctionName: this.functionName,
          InvocationType: 'Event',
          Payload: new TextEncoder().encode(JSON.stringify(KICK_EVENT)),
        }),
      );
    } catch (error) {
      // The schedule still runs the scanner within a minute; a failed kick must not fail the start.
      this.log.warn('could not kick the scanner', { error });
    }
  }
}
