// The cursor store on AWS's own DynamoDB Local and on the dynalite npm start uses: the reads and writes of concurrent
// account sweeps coalesced into BatchGetItem calls of 100 accounts and BatchWriteItem calls of 25, what DynamoDB
// leaves unprocessed asked again (a store outage when it stays so), the earlier layout (an item per folder) still
// read, and the folders an account's item holds capped.
import { randomUUID } from 'node:crypto';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createDocumentClient } from '../../shared/adapters/dynamo/client';
import { DynamoCursorStore, MAX_CURSOR_FOLDERS } from '../../shared/adapters/dynamo/DynamoCursorStore';
import { cursorKey } from '../../shared/adapters/dynamo/keys';
import { StoreUnavailableError } from '../../shared/domain/errors';
import { ensureTable } from '../../shared/local/bootstrap';
import { type LocalDynamo, startDynalite } from '../../shared/local/dynalite';
import type { FolderCursor } from '../../shared/scanner/scannerPorts';
import { DYNAMO_LOCAL_TIMEOUTS } from '../support/dynamoLocal';

const TABLE = `cursors-${randomUUID()}`;

const cursorsOf = (count: number, lastUid = 1): Map<string, FolderCursor> =>
  new Map(Array.from({ length: count }, (_, index) => [`Folder ${index}`, { uidValidity: '7', lastUid }]));
const accounts = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}@mail.test`);

/**
 * A client that counts the calls by kind, and can leave the first request of each of the first `refusals` batch
 * calls unprocessed (sending the rest on), as DynamoDB does when it throttles.
 */
const countingClient = (real: DynamoDBDocumentClient, refusals = 0) => {
  const calls = { get: [] as number[], write: [] as number[], query: 0 };
  let refused = 0;
  const client = {
    send: async (command: { input: unknown }) => {
      if (command instanceof QueryCommand) calls.query++;
      if (command instanceof BatchGetCommand) {
        const { Keys = [], ...rest } = command.input.RequestItems?.[TABLE] ?? {};
        calls.get.push(Keys.length);
        if (refused >= refusals) return real.send(command);
        refused++;
        const [left, ...others] = Keys;
        const answer =
          others.length > 0
            ? await real.send(new BatchGetCommand({ RequestItems: { [TABLE]: { ...rest, Keys: others } } }))
            : {};
        return { ...answer, UnprocessedKeys: left ? { [TABLE]: { ...rest, Keys: [left] } } : {} };
      }
      if (command instanceof BatchWriteCommand) {
        const requests = command.input.RequestItems?.[TABLE] ?? [];
        calls.write.push(requests.length);
        if (refused >= refusals) return real.send(command);
        refused++;
        const [left, ...others] = requests;
        if (others.length > 0) await real.send(new BatchWriteCommand({ RequestItems: { [TABLE]: others } }));
        return { UnprocessedItems: left ? { [TABLE]: [left] } : {} };
      }
      return real.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
  return { client, calls };
};

describe.each(['dynamodb-local', 'dynalite'] as const)('DynamoCursorStore on %s', (store) => {
  let dynamo: LocalDynamo | undefined;
  let real: DynamoDBDocumentClient;
  beforeAll(async () => {
    if (store === 'dynalite') dynamo = await startDynalite({ port: 0 });
    real = createDocumentClient({
      region: 'local',
      endpoint: dynamo?.endpoint ?? inject('dynamoLocalEndpoint'),
      ...(dynamo ? {} : { timeouts: DYNAMO_LOCAL_TIMEOUTS }),
    });
    await ensureTable(real, TABLE);
  });
  afterAll(async () => {
    real.destroy();
    await dynamo?.close();
  });

  it('writes 60 concurrent accounts in ceil(60/25) BatchWriteItem calls, acknowledged before they resolve', async () => {
    const { client, calls } = countingClient(real);
    const store = new DynamoCursorStore(client, TABLE);
    const emails = accounts('w', 60);
    await Promise.all(emails.map((email, index) => store.putAll(email, cursorsOf(3, index))));
    expect(calls.write).toEqual([25, 25, 10]);
    const reader = new DynamoCursorStore(real, TABLE);
    for (const [index, email] of emails.entries())
      expect(await reader.all(email)).toEqual(cursorsOf(3, index));
  });

  it('reads 250 concurrent accounts in ceil(250/100) BatchGetItem calls and no Query', async () => {
    const emails = accounts('r', 250);
    const writer = new DynamoCursorStore(real, TABLE);
    await Promise.all(emails.map((email, index) => writer.putAll(email, cursorsOf(2, index))));
    const { client, calls } = countingClient(real);
    const store = new DynamoCursorStore(client, TABLE);
    const read = await Promise.all(emails.map((email) => store.all(email)));
    expect(calls.get).toEqual([100, 100, 50]);
    expect(calls.query).toBe(0);
    expect(read).toEqual(emails.map((_, index) => cursorsOf(2, index)));
  });

  it('reads accounts no cursor was ever written for with one more batch call, not a Query each', async () => {
    const { client, calls } = countingClient(real);
    const read = await Promise.all(
      accounts('new', 30).map((email) => new DynamoCursorStore(client, TABLE).all(email)),
    );
    expect(read.every((cursors) => cursors.size === 0)).toBe(true);
    // Each store batches its own calls: 30 stores, so 30 reads of the item and 30 of the earlier layout's INBOX.
    expect(calls.get).toEqual(Array.from({ length: 60 }, () => 1));
    expect(calls.query).toBe(0);
    const shared = countingClient(real);
    const store = new DynamoCursorStore(shared.client, TABLE);
    await Promise.all(accounts('new', 30).map((email) => store.all(email)));
    expect(shared.calls.get).toEqual([30, 30]);
  });

  it('asks again for keys and items left unprocessed, and stays correct', async () => {
    const { client, calls } = countingClient(real, 2);
    const store = new DynamoCursorStore(client, TABLE);
    const emails = accounts('u', 3);
    await Promise.all(emails.map((email) => store.putAll(email, cursorsOf(2, 9))));
    expect(calls.write).toEqual([3, 1, 1]);
    const again = countingClient(real, 2);
    const read = await Promise.all(
      emails.map((email) => new DynamoCursorStore(again.client, TABLE).get(email, 'Folder 1')),
    );
    expect(read).toEqual(emails.map(() => ({ uidValidity: '7', lastUid: 9 })));
    expect(again.calls.get.slice(0, 2)).toEqual([1, 1]);
    expect(again.calls.get.length).toBe(5);
  });

  it('gives up as a store outage when items or keys stay unprocessed', async () => {
    const { client, calls } = countingClient(real, Number.POSITIVE_INFINITY);
    const store = new DynamoCursorStore(client, TABLE);
    await expect(store.putAll('stuck@mail.test', cursorsOf(2))).rejects.toThrow(StoreUnavailableError);
    expect(calls.write).toEqual([1, 1, 1, 1]);
    await expect(store.all('stuck@mail.test')).rejects.toThrow(StoreUnavailableError);
    expect(calls.get).toEqual([1, 1, 1, 1]);
  });

  it('reads an account still held in the earlier layout, an item per folder, until its own item is written', async () => {
    const email = 'earlier@mail.test';
    const earlier = new Map([
      ['INBOX', { uidValidity: '3', lastUid: 40 }],
      ['Junk', { uidValidity: '3', lastUid: 12 }],
    ]);
    for (const [path, cursor] of earlier)
      await real.send(
        new PutCommand({
          TableName: TABLE,
          Item: { ...cursorKey(email, path), type: 'cursor', email, path, ...cursor },
        }),
      );
    const { client, calls } = countingClient(real);
    const store = new DynamoCursorStore(client, TABLE);
    expect(await store.all(email)).toEqual(earlier);
    expect(calls.query).toBe(1);
    await store.putAll(email, new Map([...earlier, ['Junk', { uidValidity: '3', lastUid: 13 }]]));
    expect(await store.get(email, 'Junk')).toEqual({ uidValidity: '3', lastUid: 13 });
    expect(await store.get(email, 'INBOX')).toEqual({ uidValidity: '3', lastUid: 40 });
    expect(calls.query).toBe(1);
  });

  it(`keeps at most ${MAX_CURSOR_FOLDERS} folders in an account's item, and no folder of an overlong name`, async () => {
    const store = new DynamoCursorStore(real, TABLE);
    const many = new Map([
      ['x'.repeat(5000), { uidValidity: '1', lastUid: 1 }],
      ...cursorsOf(MAX_CURSOR_FOLDERS + 50),
    ]);
    await store.putAll('huge@mail.test', many);
    const kept = await store.all('huge@mail.test');
    expect(kept.size).toBe(MAX_CURSOR_FOLDERS);
    expect(kept.has('x'.repeat(5000))).toBe(false);
    expect(kept.get('Folder 0')).toEqual({ uidValidity: '7', lastUid: 1 });
    expect(kept.has(`Folder ${MAX_CURSOR_FOLDERS}`)).toBe(false);
  });
});
