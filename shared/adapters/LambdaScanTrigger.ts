// Owns invoking the scanner Lambda asynchronously: a loop at its deadline hands over to a fresh invocation.
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { ScanTrigger } from '../domain/ports';
import type { Logger } from '../log';
import { HAND_OVER_EVENT } from '../scanner/scanEvent';

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
          Payload: new TextEncoder().encode(JSON.stringify(HAND_OVER_EVENT)),
        }),
      );
    } catch (error) {
      // The schedule still runs the scanner within a minute.
      this.log.warn('could not hand the scan loop over', { error });
    }
  }
}
