// Owns counting what the local service costs, for the benchmarks only: DynamoDB request units per operation (as
// DynamoDB itself reports them) and the milliseconds the scanner loops ran, which Lambda would bill.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { indexWriteUnits, itemSize } from './indexWrites';

export interface OperationUsage {
  calls: number;
  /** Capacity units as returned in ConsumedCapacity (on-demand: read or write request units). */
  units: number;
}

export interface DynamoUsage {
  reads: Record<string, OperationUsage>;
  writes: Record<string, OperationUsage>;
  readUnits: number;
  /** Table write units only, as DynamoDB (and dynalite) report them. */
  writeUnits: number;
  /** Write units DynamoDB bills the secondary indexes on top, by index (indexWrites.ts): dynalite reports none. */
  indexWrites: Record<string, OperationUsage>;
  indexWriteUnits: number;
}

const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);

type Capacity = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;

const unitsOf = (capacity: Capacity): number =>
  [capacity ?? []].flat().reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);

/**
 * The items a BatchWriteItem puts, each with the table units its size costs: what their index copies are sized from.
 * Its deletes are not sized (the request carries keys only): in this service they remove a settled check's shard
 * entries, small items of one index unit each, written by a put the meter counted.
 */
const batchPuts = (input: Record<string, unknown>) =>
  Object.values(
    (input.RequestItems ?? {}) as Record<string, { PutRequest?: { Item?: Record<string, unknown> } }[]>,
  )
    .flat()
    .flatMap(({ PutRequest }) =>
      PutRequest?.Item ? [{ item: PutRequest.Item, units: Math.ceil(itemSize(PutRequest.Item) / 1024) }] : [],
    );

/** The prefix of npm start's usage line (bench/usageReport.ts), which the cost benchmarks read the JSON after. */
export const USAGE_REPORT_PREFIX = 'usage report: ';

export class UsageMeter {
  private readonly reads = new Map<string, OperationUsage>();
  private readonly writes = new Map<string, OperationUsage>();
  private readonly indexWrites = new Map<string, OperationUsage>();

  /** Asks DynamoDB for the capacity of every read and write through `client` and adds it up. */
  attach(client: DynamoDBDocumentClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const operation = String(context.commandName ?? '').replace(/Command$/, '');
        const input = args.input as Record<string, unknown>;
        const counted = WRITES.has(operation) || READS.has(operation);
        if (!counted) return next(args);
        input.ReturnConsumedCapacity = 'TOTAL';
        // What an update or delete replaces decides its index writes; asked for here and taken off the answer, so
        // the caller sees what it asked for.
        const askOld = (operation === 'UpdateItem' || operation === 'DeleteItem') && !input.ReturnValues;
        if (askOld) input.ReturnValues = 'ALL_OLD';
        // UPDATED_OLD (a result write's) is a part of ALL_OLD: widened, the caller still finds what it asked for.
        if (input.ReturnValues === 'UPDATED_OLD') input.ReturnValues = 'ALL_OLD';
        const table = WRITES.has(operation) ? this.writes : this.reads;
        const entry = table.get(operation) ?? { calls: 0, units: 0 };
        table.set(operation, entry);
        entry.calls++;
        try {
          const result = await next(args);
          const output = result.output as {
            ConsumedCapacity?: Capacity;
            Attributes?: Record<string, unknown>;
          };
          const units = unitsOf(output.ConsumedCapacity);
          entry.units += units;
          if (WRITES.has(operation)) {
            const items =
              operation === 'PutItem'
                ? [{ item: input.Item as Record<string, unknown>, units }]
                : operation === 'BatchWriteItem'
                  ? batchPuts(input)
                  : [{ item: output.Attributes, units }];
            for (const { item, units: itemUnits } of items) {
              for (const [index, indexUnits] of indexWriteUnits(item, itemUnits)) {
                const written = this.indexWrites.get(index) ?? { calls: 0, units: 0 };
                this.indexWrites.set(index, { calls: written.calls + 1, units: written.units + indexUnits });
              }
            }
          }
          if (askOld) delete output.Attributes;
          return result;
        } catch (error) {
          // A write refused by its condition is still billed (at least one unit), but the error carries no capacity.
          if ((error as { name?: string }).name === 'ConditionalCheckFailedException') entry.units += 1;
          throw error;
        }
      },
      { step: 'initialize', name: 'usageMeter' },
    );
  }

  report(): DynamoUsage {
    const sum = (table: Map<string, OperationUsage>) =>
      [...table.values()].reduce((total, entry) => total + entry.units, 0);
    return {
      reads: Object.fromEntries(this.reads),
      writes: Object.fromEntries(this.writes),
      readUnits: sum(this.reads),
      writeUnits: sum(this.writes),
      indexWrites: Object.fromEntries(this.indexWrites),
      indexWriteUnits: sum(this.indexWrites),
    };
  }
}
