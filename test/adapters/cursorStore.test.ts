// The cursor store's batched write on dynalite: every folder of an account placed in one request per 25, and items
// DynamoDB leaves unprocessed (throttled) sent again, or a store outage when they stay unprocessed.
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { DynamoCursorStore } from '../../shared/adapters/dynamo/DynamoCursorStore';
import { StoreUnavailableError } from '../../shared/domain/errors';
import { ensureTable } from '../../shared/local/bootstrap';
import { type LocalDynamo, startDynalite } from '../../shared/local/dynalite';
import type { FolderCursor } from '../../shared/scanner/ports';

const TABLE = 'cursors';
const EMAIL = 'a@mail.test';

const cursorsOf = (count: number): Map<string, FolderCursor> =>
  new Map(
    Array.from({ length: count }, (_, index) => [`Folder ${index}`, { uidValidity: '7', lastUid: index }]),
  );

/** A client that counts BatchWriteItem requests and can leave the first item of the first `refusals` unprocessed. */
const countingClient = (real: DynamoDBDocumentClient, refusals: number) => {
  const batches: number[] = [];
  const client = {
    send: async (command: { input: unknown }) => {
      if (!(command instanceof BatchWriteCommand)) return real.send(command as never);
      const requests = command.input.RequestItems?.[TABLE] ?? [];
      batches.push(requests.length);
      if (batches.length > refusals) return real.send(command);
      const [left, ...rest] = requests;
      if (rest.length > 0) await real.send(new BatchWriteCommand({ RequestItems: { [TABLE]: rest } }));
      return { UnprocessedItems: left ? { [TABLE]: [left] } : {} };
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, batches };
};

describe('DynamoCursorStore.putAll on dynalite', () => {
  let dynamo: LocalDynamo;
  let real: DynamoDBDocumentClient;
  beforeAll(async () => {
    dynamo = await startDynalite({ port: 0 });
    real = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
    await ensureTable(real, TABLE);
  });
  afterAll(async () => {
    real.destroy();
    await dynamo.close();
  });

  it('writes 30 folders in two requests (25 + 5), each readable afterwards', async () => {
    const { client, batches } = countingClient(real, 0);
    const written = cursorsOf(30);
    await new DynamoCursorStore(client, TABLE).putAll(EMAIL, written);
    expect(batches).toEqual([25, 5]);
    expect(await new DynamoCursorStore(real, TABLE).all(EMAIL)).toEqual(written);
  });

  it('sends an unprocessed item again until it is written', async () => {
    const { client, batches } = countingClient(real, 2);
    const written = cursorsOf(3);
    await new DynamoCursorStore(client, TABLE).putAll('b@mail.test', written);
    expect(batches).toEqual([3, 1, 1]);
    expect(await new DynamoCursorStore(real, TABLE).all('b@mail.test')).toEqual(written);
  });

  it('gives up as a store outage when items stay unprocessed', async () => {
    const { client, batches } = countingClient(real, Number.POSITIVE_INFINITY);
    await expect(new DynamoCursorStore(client, TABLE).putAll('c@mail.test', cursorsOf(2))).rejects.toThrow(
      StoreUnavailableError,
    );
    expect(batches).toEqual([2, 1, 1, 1]);
  });
});
