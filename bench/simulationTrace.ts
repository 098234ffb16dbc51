// Benchmark support for bench/shardWorker.ts: where a shard process's first sweep goes (the store's calls and how
// long each waited, the account sweeps' own durations, the watches it opened) and why sweeps failed, by kind.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountSweep } from '../shared/scanner/Scanner';

type Phase = 'first' | 'steady';

interface StoreCalls {
  calls: number;
  ms: number;
  maxMs: number;
  failed: number;
}

/** Counts of each kind of text seen. */
const tally = (counts: Map<string, number>, kind: string) => counts.set(kind, (counts.get(kind) ?? 0) + 1);

/**
 * An error or log message with what varies between accounts and attempts taken out (numbers, addresses), so the
 * same failure counts as one kind. Read word by word: our own messages, but no pattern that could backtrack.
 */
const kindOf = (text: string): string =>
  text
    .slice(0, 160)
    .split(' ')
    .map((word) => (word.includes('@') ? '<account>' : word.replace(/\d+/g, 'N')))
    .join(' ');

const quantile = (sorted: number[], share: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0);

export class SweepTrace {
  phase: Phase = 'first';
  private readonly store = { first: new Map<string, StoreCalls>(), steady: new Map<string, StoreCalls>() };
  private readonly failures = { first: new Map<string, number>(), steady: new Map<string, number>() };
  private readonly watches = { first: new Map<string, number>(), steady: new Map<string, number>() };
  private readonly firstSweepMs: number[] = [];
  /** Read units of the open-checks listing (a Query for `pending`) after the first sweep; not the settling's. */
  listingReadUnits = 0;

  /** Times every request `client` sends, by operation, into the phase it started in. */
  attach(client: DynamoDBDocumentClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const calls = this.store[this.phase];
        const operation = String(context.commandName ?? '').replace(/Command$/, '');
        const entry = calls.get(operation) ?? { calls: 0, ms: 0, maxMs: 0, failed: 0 };
        calls.set(operation, entry);
        entry.calls++;
        const began = performance.now();
        try {
          const result = await next(args);
          const input = args.input as { ExpressionAttributeNames?: Record<string, string> };
          const capacity = (result.output as { ConsumedCapacity?: { CapacityUnits?: number } })
            .ConsumedCapacity;
          const listing =
            operation === 'Query' && Object.values(input.ExpressionAttributeNames ?? {}).includes('pending');
          if (listing && this.phase === 'steady') this.listingReadUnits += capacity?.CapacityUnits ?? 0;
          return result;
        } catch (error) {
          entry.failed++;
          throw error;
        } finally {
          const ms = performance.now() - began;
          entry.ms += ms;
          entry.maxMs = Math.max(entry.maxMs, ms);
        }
      },
      // Outside the SDK's retries: what the scanner waited, attempts and back-off included.
      { step: 'initialize', name: 'sweepTrace' },
    );
  }

  /** The scanner's log line (JSON): a failed sweep counts its error's kind, any other warning its message's. */
  logLine(line: string): void {
    try {
      const { message, error } = JSON.parse(line) as { message?: string; error?: unknown };
      const text =
        message === 'account sweep failed' && typeof error === 'string' ? error : `log: ${message ?? '?'}`;
      tally(this.failures[this.phase], kindOf(text));
    } catch {
      tally(this.failures[this.phase], 'log: unreadable line');
    }
  }

  swept(sweep: AccountSweep): void {
    if (this.phase === 'first') this.firstSweepMs.push(sweep.durationMs);
  }

  watched(state: string): void {
    tally(this.watches[this.phase], state);
  }

  report() {
    const calls = (table: Map<string, StoreCalls>) =>
      Object.fromEntries(
        [...table].map(([operation, entry]) => [
          operation,
          {
            calls: entry.calls,
            meanMs: Math.round(entry.ms / Math.max(entry.calls, 1)),
            maxMs: Math.round(entry.maxMs),
            failed: entry.failed,
          },
        ]),
      );
    const sweeps = [...this.firstSweepMs].sort((a, b) => a - b);
    return {
      storeFirst: calls(this.store.first),
      storeSteady: calls(this.store.steady),
      failureKindsFirst: Object.fromEntries(this.failures.first),
      failureKindsSteady: Object.fromEntries(this.failures.steady),
      watchesFirst: Object.fromEntries(this.watches.first),
      watchesSteady: Object.fromEntries(this.watches.steady),
      accountSweepFirstMs: {
        p50: Math.round(quantile(sweeps, 0.5)),
        p90: Math.round(quantile(sweeps, 0.9)),
        max: Math.round(sweeps.at(-1) ?? Number.NaN),
      },
    };
  }
}
