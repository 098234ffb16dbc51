// Owns invoking the scanner Lambda asynchronously: a loop at its deadline hands over to a fresh invocation, the
// first invocation of a schedule starts one invocation per further shard, and the stream's wake-up starts a loop.
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { Logger } from '../log';
import type { HandOverChain } from '../scanner/handOverChain';
import { handOverEvent, kickEvent, type ScanWake, shardEvent } from '../scanner/invocation';
import type { Shard } from '../scanner/shards';

export class ScannerInvoker {
  constructor(
    private readonly client: LambdaClient,
    private readonly functionName: string,
    private readonly log: Logger,
  ) {}

  /** A fresh invocation continues this shard's loop, as the next hop of `chain`. */
  async handOver(shard: Shard, chain: HandOverChain): Promise<void> {
    await this.invoke(handOverEvent(shard, chain), 'could not hand the scan loop over');
  }

  /** Another invocation sweeps `shard`, woken for the same reason as this one. */
  async startShard(shard: Shard, wake: ScanWake): Promise<void> {
    await this.invoke(shardEvent(shard, wake), 'could not start a scanner shard');
  }

  /** A loop for `shard` that takes over the lease the wake-up reserved for it; false when the invoke failed. */
  async startLoop(shard: Shard, reservedBy: string): Promise<boolean> {
    return this.invoke(kickEvent(shard, reservedBy), 'could not start a scanner loop');
  }

  private async invoke(event: object, failure: string): Promise<boolean> {
    try {
      await this.client.send(
        new InvokeCommand({
          FunctionName: this.functionName,
          InvocationType: 'Event',
          Payload: new TextEncoder().encode(JSON.stringify(event)),
        }),
      );
      return true;
    } catch (error) {
      // The schedule still runs every shard within a minute.
      this.log.warn(failure, { error });
      return false;
    }
  }
}
